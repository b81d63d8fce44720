"""Wrong arguments to skiff.nn.functional are refused at the API edge with the public
function named: axes out of range, non-Tensors where Tensors go, and integer tensors given
to functions composed of ops that have only floating-point kernels."""
import numpy as np
import pytest

import skiff
import skiff.nn.functional as F
from skiff.framework.arguments import ArgumentError, ArgumentTypeError, AxisError

X = skiff.ones([2, 4])
INTS = skiff.ones([2, 4], dtype="int32")


@pytest.mark.parametrize("call,fn", [
    (lambda: F.glu(INTS), "glu"),
    (lambda: F.normalize(INTS), "normalize"),
    (lambda: F.linear(INTS, INTS), "linear"),
    (lambda: F.cross_entropy(INTS, skiff.zeros([2], "int64")), "cross_entropy"),
    (lambda: F.l1_loss(INTS, INTS), "l1_loss"),
    (lambda: F.mish(INTS), "mish"),
    (lambda: F.cosine_similarity(INTS, INTS), "cosine_similarity"),
    (lambda: skiff.mean(INTS), "mean"),
    (lambda: skiff.var(INTS), "var"),
    (lambda: skiff.linalg.inv(skiff.ones([2, 2], "int64")), "inv"),
])
def test_integer_inputs_of_float_only_functions_name_the_function(call, fn):
    with pytest.raises(ArgumentTypeError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{fn}: ") and "Tensor, got int" in message, message


@pytest.mark.parametrize("fn", [F.sigmoid, F.relu, F.tanh, F.silu, skiff.exp, skiff.sqrt])
def test_single_op_functions_name_themselves_and_the_dtypes_they_take(fn):
    with pytest.raises(ArgumentTypeError, match=rf"^{fn.__name__}: x must be a .*float32.* "
                                                r"Tensor, got (int32|bool)$"):
        fn(skiff.ones([2], dtype="bool") if fn is F.relu else INTS)


def test_glu_messages():
    with pytest.raises(ArgumentTypeError, match="^glu: x must be a floating-point Tensor, "
                                                "got int32$"):
        F.glu(INTS)
    with pytest.raises(ArgumentError, match="glu: axis 1 of x .* must have an even size"):
        F.glu(skiff.ones([2, 3]))
    with pytest.raises(AxisError, match=r"glu: axis 2 is out of range for a 2-D tensor"):
        F.glu(X, axis=2)


@pytest.mark.parametrize("call,fn,what", [
    (lambda: F.softmax(X, 2), "softmax", "axis 2"),
    (lambda: F.softmax(X, 10**20), "softmax", f"axis {10**20}"),
    (lambda: F.log_softmax(X, -3), "log_softmax", "axis -3"),
    (lambda: F.softmax_(skiff.ones([2, 4]), 2), "softmax_", "axis 2"),
    (lambda: F.normalize(X, axis=2), "normalize", "axis 2"),
    (lambda: F.cosine_similarity(X, X, axis=2), "cosine_similarity", "axis 2"),
    (lambda: F.gumbel_softmax(X, axis=2), "gumbel_softmax", "axis 2"),
    (lambda: F.dropout(X, 0.5, axis=2), "dropout", "axis 2"),
    (lambda: F.cross_entropy(skiff.ones([2, 3, 4]), skiff.zeros([2, 4], "int64"), axis=3),
     "cross_entropy", "axis 3"),
    (lambda: F.softmax_with_cross_entropy(X, skiff.zeros([2, 1], "int64"), axis=5),
     "softmax_with_cross_entropy", "axis 5"),
    (lambda: F.maxout(skiff.ones([1, 4, 2, 2]), 2, axis=4), "maxout", "axis 4"),
])
def test_axis_errors_name_the_function(call, fn, what):
    with pytest.raises(AxisError) as info:
        call()
    message = str(info.value)
    assert message.startswith(fn + ": ") and what in message, message


def test_softmax_axis_kinds():
    with pytest.raises(ArgumentTypeError, match="^softmax: axis must be an int, got bool"):
        F.softmax(X, True)
    with pytest.raises(ArgumentTypeError, match="^softmax: axis must be an int, got float"):
        F.softmax(X, 1.0)
    np.testing.assert_allclose(F.softmax(X, np.int64(1)).numpy(), np.full([2, 4], 0.25))
    assert F.softmax(skiff.to_tensor(1.0), 0).shape == []


@pytest.mark.parametrize("call,fn,param,kind", [
    (lambda: F.linear(X, 3), "linear", "weight", "int"),
    (lambda: F.linear(X, skiff.ones([4, 2]), "b"), "linear", "bias", "str"),
    (lambda: F.relu([1.0]), "relu", "x", "list"),
    (lambda: F.softmax(np.ones(3)), "softmax", "x", "ndarray"),
    (lambda: F.mse_loss(X, 1.0), "mse_loss", "label", "float"),
    (lambda: F.cross_entropy(X, [0, 1]), "cross_entropy", "label", "list"),
    (lambda: F.embedding([0], skiff.ones([3, 2])), "embedding", "x", "list"),
    (lambda: F.conv2d(np.ones([1, 1, 3, 3]), skiff.ones([1, 1, 2, 2])), "conv2d", "x",
     "ndarray"),
    (lambda: F.scaled_dot_product_attention(X, X, 2), "scaled_dot_product_attention",
     "value", "int"),
])
def test_wrong_kinds_are_type_errors_naming_function_and_parameter(call, fn, param, kind):
    with pytest.raises(ArgumentTypeError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{fn}: {param} must be ") and message.endswith(f"got {kind}")


def test_layers_pass_their_parameters_and_refuse_wrong_inputs():
    layer = skiff.nn.Linear(4, 3)
    assert layer(X).shape == [2, 3]
    with pytest.raises(ArgumentTypeError, match="^Linear: input must be a Tensor, got list$"):
        layer([[1.0] * 4])
    with pytest.raises(ArgumentTypeError, match="^BatchNorm2D: input must be a Tensor"):
        skiff.nn.BatchNorm2D(3)("x")
    with pytest.raises(ArgumentTypeError, match="^CrossEntropyLoss: label must be a Tensor, "
                                                "got int$"):
        skiff.nn.CrossEntropyLoss()(X, 5)
    with pytest.raises(ArgumentTypeError, match="^RNN: inputs must be a Tensor, got list$"):
        skiff.nn.RNN(skiff.nn.SimpleRNNCell(4, 2))([X])
    assert skiff.nn.Identity()(5) == 5
    assert skiff.nn.Sequential(skiff.nn.Identity())("anything") == "anything"
