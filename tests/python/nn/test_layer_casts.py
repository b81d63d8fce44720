"""Layer dtype casts and state (skiff/nn/layer/layers.py): bfloat16 / float16 / half /
float with excluded_layers, to_static_state_dict; LayerList.extend taking a LayerList;
Transformer importable from nn.layer.transformer; sublayers' repr as Paddle's."""
import warnings

import pytest

import skiff
import skiff.nn as nn

paddle = pytest.importorskip("paddle")


def _dtypes(layer):
    return {k: str(v.dtype).split(".")[-1] for k, v in layer.state_dict().items()}


def test_bfloat16_keeps_the_legacy_batch_norm_and_excluded_layers():
    model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm(2), nn.LayerNorm(2), nn.Linear(2, 2))
    model.bfloat16()
    got = _dtypes(model)
    assert got["0.weight"] == "bfloat16" and got["2.bias"] == "bfloat16"
    assert got["1.weight"] == "float32" and got["1._mean"] == "float32"
    model.float().bfloat16(excluded_layers=[model[3]])
    got = _dtypes(model)
    assert got["1.weight"] == "bfloat16" and got["3.weight"] == "float32"
    model.float(excluded_layers=[nn.LayerNorm])
    got = _dtypes(model)
    assert got["0.weight"] == "float32" and got["2.weight"] == "bfloat16"
    with pytest.raises(TypeError, match="excluded_layers"):
        model.bfloat16(excluded_layers=["linear"])


def test_float16_warns_and_keeps_dtypes():
    model = nn.Linear(2, 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert model.float16() is model
        model.half()
    assert len(caught) == 2 and "float16" in str(caught[0].message)
    assert _dtypes(model) == {"weight": "float32", "bias": "float32"}


def test_to_static_state_dict():
    emb = nn.Embedding(10, 4)
    state = emb.to_static_state_dict()
    assert list(state) == ["weight"] and state["weight"] is emb.weight


def test_layer_list_extend_with_a_layer_list():
    linears = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    more = nn.LayerList([nn.Linear(2, 2) for _ in range(2)])
    linears.extend(more)
    assert len(linears) == 5 and linears[3] is more[0]
    linears.extend(nn.Sequential(nn.ReLU()))
    assert len(linears) == 6
    with pytest.raises(TypeError, match="list of Layers"):
        linears.extend(nn.Linear(2, 2))


def test_transformer_in_layer_transformer_and_sublayer_repr():
    from skiff.nn.layer.transformer import Transformer, TransformerEncoderLayer

    assert Transformer is nn.Transformer and TransformerEncoderLayer is nn.TransformerEncoderLayer
    mask = Transformer(8, 4, dim_feedforward=16).generate_square_subsequent_mask(3)
    assert mask.shape == [3, 3]
    mine = nn.Sequential(nn.Linear(1, 1), nn.Dropout(p=0.5))
    ref = paddle.nn.Sequential(paddle.nn.Linear(1, 1), paddle.nn.Dropout(p=0.5))
    assert repr(mine.sublayers()) == repr(ref.sublayers())
