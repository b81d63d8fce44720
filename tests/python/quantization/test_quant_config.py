"""QuantConfig's per-name, per-layer and per-type settings, custom QAT layer mappings and
customized leaves, and how a config prints (as Paddle's)."""
import pytest

import skiff
from skiff.quantization import QAT, QuantConfig
from skiff.quantization.layers import QuantedLinear
from skiff.quantization.quanters import FakeQuanterWithAbsMaxObserver


class TwoLayers(skiff.nn.Layer):
    def __init__(self):
        super().__init__()
        self.head = skiff.nn.Sequential(skiff.nn.Linear(4, 4), skiff.nn.ReLU())
        self.fc = skiff.nn.Linear(4, 2)
        self.conv = skiff.nn.Conv2D(1, 1, 1)

    def forward(self, x):
        return self.fc(self.head(x))


def quanter():
    return FakeQuanterWithAbsMaxObserver(moving_rate=0.9)


def test_the_global_config_prints_as_paddles(paddle):
    from paddle.quantization import QuantConfig as PaddleConfig
    from paddle.quantization.quanters import FakeQuanterWithAbsMaxObserver as PaddleQuanter
    theirs = str(PaddleConfig(activation=PaddleQuanter(moving_rate=0.9),
                              weight=PaddleQuanter(moving_rate=0.9)))
    assert str(QuantConfig(activation=quanter(), weight=quanter())) == theirs
    assert str(QuantConfig()) == str(PaddleConfig(activation=None, weight=None))


@pytest.mark.parametrize("how", ["name", "layer"])
def test_a_layer_named_in_the_config_alone_is_quantized(how):
    model = TwoLayers()
    config = QuantConfig(activation=None, weight=None)
    if how == "name":
        config.add_name_config([model.fc.full_name()], activation=quanter(), weight=quanter())
    else:
        config.add_layer_config([model.fc], activation=quanter(), weight=quanter())
    assert "Layer prefix config" in str(config) and model.fc.full_name() in str(config)
    quantized = QAT(config).quantize(model)
    assert isinstance(quantized.fc, QuantedLinear)
    assert isinstance(quantized.head[0], skiff.nn.Linear)
    assert isinstance(model.fc, skiff.nn.Linear)  # the original is left as it was


def test_a_type_config_prints_and_applies():
    config = QuantConfig(activation=None, weight=None)
    config.add_type_config([skiff.nn.Linear], activation=quanter(), weight=quanter())
    assert "Layer type config" in str(config)
    quantized = QAT(config).quantize(TwoLayers())
    assert isinstance(quantized.fc, QuantedLinear) and isinstance(quantized.head[0],
                                                                  QuantedLinear)
    assert isinstance(quantized.conv, skiff.nn.Conv2D)


def test_a_custom_qat_layer_mapping_builds_the_target_from_the_layer_config():
    made = []

    class CustomConv(skiff.nn.Layer):
        def __init__(self, layer, q_config):
            super().__init__()
            self.inner = layer
            self.weight_quanter = q_config.weight._instance(layer)
            made.append(q_config)

        def forward(self, x):
            return self.inner(x)

    config = QuantConfig(activation=quanter(), weight=quanter())
    config.add_qat_layer_mapping(skiff.nn.Conv2D, CustomConv)
    assert config.qat_layer_mappings[skiff.nn.Conv2D] is CustomConv
    assert config.default_qat_layer_mapping[skiff.nn.Conv2D] is not CustomConv
    quantized = QAT(config).quantize(TwoLayers())
    assert isinstance(quantized.conv, CustomConv) and len(made) == 1
    assert isinstance(quantized.conv.weight_quanter, FakeQuanterWithAbsMaxObserver)
    assert isinstance(quantized.fc, QuantedLinear)


def test_a_customized_leaf_keeps_its_sublayers_float():
    config = QuantConfig(activation=quanter(), weight=quanter())
    config.add_customized_leaf(skiff.nn.Sequential)
    assert config.customized_leaves == [skiff.nn.Sequential]
    quantized = QAT(config).quantize(TwoLayers())
    assert isinstance(quantized.head[0], skiff.nn.Linear)
    assert isinstance(quantized.fc, QuantedLinear)


@pytest.mark.parametrize("call,message", [
    (lambda c: c.add_name_config([3]), "layer_name must be a str"),
    (lambda c: c.add_layer_config("fc"), "layer must be a Layer"),
    (lambda c: c.add_type_config([int]), "layer_type must be a subclass of Layer"),
    (lambda c: c.add_qat_layer_mapping(skiff.nn.Conv2D, object), "target must be"),
    (lambda c: c.add_customized_leaf("Sequential"), "layer_type must be"),
])
def test_bad_settings_are_named(call, message):
    with pytest.raises(TypeError, match=message):
        call(QuantConfig())
