"""Layer constructors check their settings before any parameter or sublayer is made: sizes
and counts (ArgumentError below their bound, ArgumentTypeError for a wrong kind), rates,
modes and data formats, and stacks deeper than MAX_LAYERS; each message names the layer and
the argument. The containers check what they are given and the keys they are asked for."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import MAX_LAYERS, ArgumentError, ArgumentTypeError

nn = skiff.nn


def _raises(error, fn, *words):
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


def test_convolutions():
    with _raises(ArgumentTypeError, "Conv1D", "in_channels"):
        nn.Conv1D(nn.Linear(3, 3), 2, 3)
    with _raises(ArgumentError, "Conv2D", "groups", "got 0"):
        nn.Conv2D(4, 4, 3, groups=0)
    with _raises(ArgumentError, "Conv2D", "divisible by groups"):
        nn.Conv2D(4, 3, 3, groups=2)
    with _raises(ArgumentError, "Conv2D", "padding_mode", "'zeros'"):
        nn.Conv2D(4, 4, 3, padding_mode="mirror")
    with _raises(ArgumentTypeError, "Conv3D", "kernel_size"):
        nn.Conv3D(2, 2, "a")
    assert nn.Conv2D(0, 3, 3).weight.shape == [3, 0, 3, 3]  # no entries, no division by 0
    with _raises(ArgumentTypeError, "conv2d", "stride"):
        skiff.nn.functional.conv2d(skiff.ones([1, 1, 4, 4]), skiff.ones([1, 1, 3, 3]),
                                   stride="ab")
    with pytest.raises(skiff.Error, match="conv2d: weight must be 4-D"):
        skiff.nn.functional.conv2d(skiff.ones([]), skiff.ones([]), stride=[3], dilation=[])


def test_norms():
    with _raises(ArgumentError, "GroupNorm", "num_groups", "got 0"):
        nn.GroupNorm(0, 0)
    with _raises(ArgumentTypeError, "LayerNorm", r"normalized_shape\[0\]"):
        nn.LayerNorm(["inf"])
    with _raises(ArgumentError, "BatchNorm2D", "num_features"):
        nn.BatchNorm2D(-2)
    with _raises(ArgumentTypeError, "BatchNorm2D", "data_format"):
        nn.BatchNorm2D(2, data_format=np.zeros(3))
    with _raises(ArgumentTypeError, "LocalResponseNorm", "size", "list"):
        nn.LocalResponseNorm([2, -1, 2])
    with _raises(ArgumentTypeError, "group_norm", "num_groups", "bool"):
        skiff.nn.functional.group_norm(skiff.ones([1, 2, 4, 4]), False)
    with _raises(ArgumentError, "group_norm", "num_groups", "got 0"):
        skiff.nn.functional.group_norm(skiff.ones([1, 2, 4, 4]), 0)
    with _raises(ArgumentError, "normalize", "p must not be 0"):
        skiff.nn.functional.normalize(skiff.ones([2, 3]), 0.0)


def test_padding_layers():
    with _raises(ArgumentTypeError, "Pad3D", "padding", "float"):
        nn.Pad3D(2.0)
    with _raises(ArgumentTypeError, "ZeroPad3D", "data_format"):
        nn.ZeroPad3D([3, 1], 10**20)
    with _raises(ArgumentTypeError, "ConstantPad1D", "value", "complex"):
        nn.ConstantPad1D(1, 1j)
    assert nn.Pad2D(skiff.to_tensor([1, 1, 1, 1]))(skiff.ones([1, 1, 2, 2])).shape == \
        [1, 1, 4, 4]


def test_transformers_refuse_stacks_past_max_layers_before_building():
    with _raises(ArgumentError, "Transformer", "num_encoder_layers", str(MAX_LAYERS)):
        nn.Transformer(num_encoder_layers=2**64)
    with _raises(ArgumentError, "LSTM", "num_layers"):
        nn.LSTM(2, 3, num_layers=2**40)
    with _raises(ArgumentError, "TransformerEncoderLayer", "multiple of nhead"):
        nn.TransformerEncoderLayer(8, 3, 8)
    with _raises(ArgumentTypeError, "TransformerEncoderLayer", "d_model", "str"):
        nn.TransformerEncoderLayer("uint8", -2, 8)
    with _raises(ArgumentError, "TransformerEncoderLayer", "activation"):
        nn.TransformerEncoderLayer(4, 2, 8, activation="foo")
    with _raises(ArgumentTypeError, "TransformerDecoder", "Layer", "Tensor"):
        nn.TransformerDecoder(skiff.ones([4]), 1)
    with _raises(ArgumentError, "MultiHeadAttention", "dropout"):
        nn.MultiHeadAttention(4, 2, dropout=2.0)
    assert len(nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), 2).layers) == 2


def test_recurrent_layers():
    with _raises(ArgumentTypeError, "SimpleRNNCell", "hidden_size", "str"):
        nn.SimpleRNNCell(1, "-0.0")
    with _raises(ArgumentTypeError, "RNN", "cell", "Tensor"):
        nn.RNN(skiff.ones([4]))
    with _raises(ArgumentError, "SimpleRNNCell", "activation"):
        nn.SimpleRNNCell(2, 2, activation="gelu")
    assert nn.GRU(2, 3, num_layers=2, direction="bidirect")(skiff.ones([1, 4, 2]))[0].shape == \
        [1, 4, 6]


def test_initializers_and_parameters():
    init = nn.initializer
    with _raises(ArgumentTypeError, "Normal", "mean", "tuple"):
        init.Normal(())
    with _raises(ArgumentTypeError, "TruncatedNormal", "b", "array"):
        init.TruncatedNormal(0.1, 7, a=1.0, b=np.ones((3, 3), "bool"))
    with _raises(ArgumentTypeError, "calculate_gain", "nonlinearity"):
        init.calculate_gain([])
    with _raises(ArgumentTypeError, "create_parameter", "dtype"):
        skiff.create_parameter(3, [5])
    with _raises(ArgumentTypeError, "Layer", "name_scope"):
        nn.Layer([1.0])
    assert nn.Linear(0, 3).weight.shape == [0, 3]  # fans of 0: no division by 0


def test_containers():
    with pytest.raises(KeyError, match="LayerDict: no entry 1j"):
        nn.LayerDict().pop(1j)
    with _raises(ArgumentTypeError, "LayerDict.update", "str"):
        nn.LayerDict("none")
    with _raises(ArgumentTypeError, "LayerList", "list of Layers", "bool"):
        nn.LayerList(True)
    with _raises(ArgumentTypeError, "Sequential", "entry 0", "NoneType"):
        nn.Sequential(None)
    with _raises(ArgumentTypeError, "LayerList", "index", "str"):
        nn.LayerList([nn.ReLU()])["a"]
    assert isinstance(nn.LayerDict({"a": nn.ReLU()}).pop("a"), nn.ReLU)
