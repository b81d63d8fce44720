"""QuantConfig's Paddle API: printing, add_name_config, add_layer_config and
add_type_config priorities, add_customized_leaf (a leaf is quantized as one layer: an
ObserveWrapper) and add_qat_layer_mapping (a custom quantized layer made as Paddle makes
it), checked against PaddlePaddle 3.3's QAT on the same model."""
import importlib

import numpy as np
import paddle
import pytest

import skiff


def _api(m):
    importlib.import_module(m.__name__ + ".quantization.quanters")
    q = m.quantization
    return q.QAT, q.QuantConfig, q.quanters.FakeQuanterWithAbsMaxObserver


def _model(m):
    class Block(m.nn.Layer):
        def __init__(self):
            super().__init__()
            self.inner = m.nn.Linear(4, 4)

        def forward(self, x):
            return self.inner(x)

    class Model(m.nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1, self.fc2 = m.nn.Linear(4, 4), m.nn.Linear(4, 4)
            self.block = Block()
            self.conv = m.nn.Conv2D(1, 1, 1)

        def forward(self, x):
            return self.block(self.fc2(self.fc1(x)))

    return Model(), Block


def _kinds(model):
    return {n: type(layer).__name__ for n, layer in model.named_sublayers() if "." not in n}


def _quantized(m, configure):
    QAT, QuantConfig, Quanter = _api(m)
    model, block = _model(m)
    config = configure(m, model, block, QuantConfig, Quanter(moving_rate=0.9))
    return QAT(config).quantize(model), config


def _same_on_both(configure):
    ours, config = _quantized(skiff, configure)
    theirs, _ = _quantized(paddle, configure)
    assert _kinds(ours) == _kinds(theirs)
    return ours, config


def test_printing_as_paddle():
    for m in (skiff, paddle):
        QAT, QuantConfig, Quanter = _api(m)
        q = Quanter(moving_rate=0.9)
        text = str(QuantConfig(activation=q, weight=q))
        assert text.splitlines()[:3] == [
            "Global config:",
            "activation: FakeQuanterWithAbsMaxObserver(name=None,moving_rate=0.9,bit_length=8,"
            "dtype=float32)",
            "weight: FakeQuanterWithAbsMaxObserver(name=None,moving_rate=0.9,bit_length=8,"
            "dtype=float32)"], m
        config = QuantConfig(activation=None, weight=None)
        config.add_name_config(["linear_7"], activation=q, weight=q)
        lines = str(config).splitlines()
        assert lines[:3] == ["Global config:", "None", "Layer prefix config: "], m
        assert lines[3].startswith("{'linear_7': ")


def test_name_and_layer_configs_pick_layers():
    def configure(m, model, block, QuantConfig, q):
        config = QuantConfig(activation=None, weight=None)
        config.add_name_config(model.fc2.full_name(), activation=q, weight=q)
        config.add_layer_config([model.fc1], activation=q, weight=q)
        return config
    ours, _ = _same_on_both(configure)
    assert _kinds(ours) == {"fc1": "QuantedLinear", "fc2": "QuantedLinear", "block": "Block",
                            "conv": "Conv2D"}


def test_customized_leaf_is_quantized_as_one_layer():
    def configure(m, model, block, QuantConfig, q):
        config = QuantConfig(activation=q, weight=q)
        config.add_customized_leaf(block)
        return config
    ours, config = _same_on_both(configure)
    assert config.customized_leaves == [type(ours.block._observed)]
    # the leaf's input goes through its activation quanter; its sublayers stay float
    assert type(ours.block._observed.inner).__name__ == "Linear"
    x = skiff.to_tensor(np.random.default_rng(0).standard_normal([3, 4]).astype("float32"))
    ours.block(x)  # (training: the quanter learns its scale)
    ours.eval()
    expected = ours.block._observed(ours.block._observer(x))
    np.testing.assert_array_equal(ours.block(x).numpy(), expected.numpy())


def test_qat_layer_mapping_makes_the_target():
    def configure(m, model, block, QuantConfig, q):
        class QuantedConv(m.nn.Layer):
            def __init__(self, layer, config):
                super().__init__()
                self.layer, self.weight_quanter = layer, config.weight._instance(layer)

            def forward(self, x):
                return self.layer(x)

        config = QuantConfig(activation=q, weight=q)
        config.add_qat_layer_mapping(m.nn.Conv2D, QuantedConv)
        return config
    ours, config = _same_on_both(configure)
    assert type(ours.conv.weight_quanter).__name__ == "FakeQuanterWithAbsMaxObserver"
    assert config.qat_layer_mappings[skiff.nn.Conv2D].__name__ == "QuantedConv"
    assert set(config.default_qat_layer_mapping) == {skiff.nn.Linear, skiff.nn.Conv2D}


def test_errors():
    config = skiff.quantization.QuantConfig()
    with pytest.raises(TypeError, match="add_customized_leaf: layer_type must be a subclass"):
        config.add_customized_leaf(skiff.nn.Linear(2, 2))
    with pytest.raises(TypeError, match="add_qat_layer_mapping: target must be a subclass"):
        config.add_qat_layer_mapping(skiff.nn.Conv2D, lambda layer, c: layer)
    with pytest.raises(TypeError, match="add_name_config: layer_name must be a str"):
        config.add_name_config(skiff.nn.Linear(2, 2))
    with pytest.raises(TypeError, match="add_type_config: layer_type must be a subclass"):
        config.add_type_config("Linear")
