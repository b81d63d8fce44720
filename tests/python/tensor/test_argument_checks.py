"""Wrong arguments to skiff's tensor functions are refused at the API edge, before any loop
or op uses them: axes out of range (AxisError: a ValueError and an IndexError), counts out
of bounds (ValueError), arguments of the wrong kind (TypeError); each message names the
public function, the parameter and the value. Every error is also a skiff.Error."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import ArgumentError, ArgumentTypeError, AxisError

X = skiff.ones([2, 3])
HUGE = [10**20, 2**63]


def _raises(error, fn, *words):
    """pytest.raises for ``error`` whose message starts with "fn:" and holds ``words``."""
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


# ---- splits and counts: bounded before any loop runs ----

@pytest.mark.parametrize("n", HUGE)
@pytest.mark.parametrize("fn", ["hsplit", "vsplit", "tensor_split"])
def test_split_counts_beyond_any_tensor_are_refused_at_once(fn, n):
    with _raises(ArgumentError, fn, "num_or_indices", str(n)):
        getattr(skiff, fn)(X, n)


def test_dsplit_and_split_counts():
    with _raises(ArgumentError, "dsplit", "num_or_indices", "-1"):
        skiff.dsplit(skiff.ones([2, 3, 4]), -1)
    with _raises(ArgumentError, "dsplit", "at least 3 dims"):
        skiff.dsplit(X, 2)
    with _raises(ArgumentError, "split", "num_or_sections", "in \\[1, 3\\]", "got 4"):
        skiff.split(X, 4, axis=1)
    with _raises(ArgumentError, "split", "num_or_sections", "got 0"):
        skiff.split(X, 0, axis=1)
    with _raises(ArgumentError, "split", "num_or_sections", str(10**20)):
        skiff.split(X, 10**20, axis=1)
    with _raises(ArgumentError, "split", r"num_or_sections\[0\]", "-2"):
        skiff.split(X, [-2, 5], axis=1)
    with _raises(ArgumentTypeError, "split", "num_or_sections", "float"):
        skiff.split(X, 1.5)
    with _raises(ArgumentError, "chunk", "chunks", "got 0"):
        skiff.chunk(X, 0, axis=1)
    with _raises(AxisError, "chunk", "axis 2"):
        skiff.chunk(X, 1, axis=2)


def test_splits_into_more_outputs_than_an_op_has_are_refused():
    empty = skiff.zeros([2**31, 0])  # no elements, 2**31 slices
    with _raises(ArgumentError, "unstack", "axis 0 has 2147483648 entries"):
        skiff.unbind(empty)
    with _raises(ArgumentError, "split", "num_or_sections", "outputs an op can have"):
        skiff.split(empty, 2**31)


def test_valid_splits_are_unchanged():
    assert [p.shape for p in skiff.tensor_split(X, 5, axis=1)] == [[2, 1]] * 3 + [[2, 0]] * 2
    assert [p.shape for p in skiff.hsplit(X, [1])] == [[2, 1], [2, 2]]
    assert [p.shape for p in skiff.split(X, [1, -1], axis=1)] == [[2, 1], [2, 2]]
    assert [p.shape for p in skiff.split(X, np.int64(3), axis=1)] == [[2, 1]] * 3


@pytest.mark.parametrize("n", HUGE)
def test_diff_of_a_huge_order_is_empty_at_once(n):
    assert skiff.diff(X, n).shape == [2, 0]
    assert skiff.diff(X, n, axis=0).shape == [0, 3]


def test_diff_argument_errors():
    with _raises(ArgumentError, "diff", "n must be >= 0", "-1"):
        skiff.diff(X, -1)
    with _raises(ArgumentTypeError, "diff", "n must be an int", "float"):
        skiff.diff(X, 1.5)
    with _raises(AxisError, "diff", "axis 2", r"\[-2, 1\]"):
        skiff.diff(X, 1, axis=2)


def test_topk_kthvalue_repeat_interleave_counts():
    with _raises(ArgumentError, "topk", "k", "got 4"):
        skiff.topk(X, 4)
    with _raises(ArgumentError, "topk", "k", str(10**20)):
        skiff.topk(X, 10**20)
    with _raises(ArgumentError, "kthvalue", "k", "got 0"):
        skiff.kthvalue(X, 0)
    with _raises(ArgumentError, "repeat_interleave", "repeats", "-1"):
        skiff.repeat_interleave(X, -1, 0)
    with _raises(ArgumentError, "repeat_interleave", "repeats", str(10**20)):
        skiff.repeat_interleave(X, 10**20, 0)
    with _raises(ArgumentError, "tile", r"repeat_times\[0\]", "-1"):
        skiff.tile(X, [-1, 1])


# ---- axes ----

@pytest.mark.parametrize("fn", ["sum", "mean", "max", "min", "prod", "all", "any",
                                "logsumexp", "count_nonzero", "var", "std", "nansum", "nanmean"])
@pytest.mark.parametrize("axis", [2, -3, 10**20, [0, 5]])
def test_reductions_check_their_axes(fn, axis):
    shown = axis[1] if isinstance(axis, list) else axis
    with _raises(AxisError, fn, f"axis {shown} is out of range", r"\[-2, 1\]"):
        getattr(skiff, fn)(X, axis)


@pytest.mark.parametrize("fn", ["sum", "mean", "max", "all"])
@pytest.mark.parametrize("axis", [1.0, True, "0", [0, 0.5]])
def test_reduction_axes_must_be_integers(fn, axis):
    with _raises(ArgumentTypeError, fn, "axis", "must be an int"):
        getattr(skiff, fn)(X, axis)


def test_reduction_axes_repeated_and_valid_forms():
    with _raises(ArgumentError, "sum", "more than once"):
        skiff.sum(X, [0, -2])
    np.testing.assert_array_equal(skiff.sum(X, np.int64(1)).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(skiff.sum(X, skiff.to_tensor([0])).numpy(), [2.0] * 3)
    np.testing.assert_array_equal(skiff.sum(X, (0, 1)).numpy(), 6.0)
    scalar = skiff.to_tensor(2.0)
    assert skiff.sum(scalar, 0).shape == [] and skiff.mean(scalar, -1).shape == []
    with _raises(AxisError, "sum", "axis 1", r"0-D tensor \(valid: \[-1, 0\]\)"):
        skiff.sum(scalar, 1)


@pytest.mark.parametrize("call,fn,what", [
    (lambda: skiff.argsort(X, -5), "argsort", "axis -5"),
    (lambda: skiff.sort(X, 2), "sort", "axis 2"),
    (lambda: skiff.argmax(X, 2), "argmax", "axis 2"),
    (lambda: skiff.topk(X, 1, axis=3), "topk", "axis 3"),
    (lambda: skiff.kthvalue(X, 1, axis=-3), "kthvalue", "axis -3"),
    (lambda: skiff.mode(X, 2), "mode", "axis 2"),
    (lambda: skiff.cumsum(X, 2), "cumsum", "axis 2"),
    (lambda: skiff.cumprod(X, 2), "cumprod", "dim 2"),
    (lambda: skiff.cummax(X, -3), "cummax", "axis -3"),
    (lambda: skiff.logcumsumexp(X, 2), "logcumsumexp", "axis 2"),
    (lambda: skiff.flip(X, 100), "flip", "axis 100"),
    (lambda: X.flip(100), "flip", "axis 100"),
    (lambda: skiff.flip(X, [0, 2]), "flip", "axis 2"),
    (lambda: skiff.roll(X, 1, 2), "roll", "axis 2"),
    (lambda: skiff.concat([X, X], axis=2), "concat", "axis 2"),
    (lambda: skiff.stack([X, X], axis=3), "stack", "axis 3 is out of range for a 3-D"),
    (lambda: skiff.unstack(X, 2), "unstack", "axis 2"),
    (lambda: skiff.unbind(X, -3), "unstack", "axis -3"),
    (lambda: skiff.squeeze(X, 2), "squeeze", "axis 2"),
    (lambda: skiff.unsqueeze(X, 3), "unsqueeze", "axis 3 is out of range for a 3-D"),
    (lambda: skiff.unsqueeze(X, [0, 4]), "unsqueeze", "axis 4 is out of range for a 4-D"),
    (lambda: skiff.transpose(X, [0, 2]), "transpose", "perm 2"),
    (lambda: skiff.moveaxis(X, 0, 2), "moveaxis", "destination 2"),
    (lambda: skiff.swapaxes(X, 0, 2), "swapaxes", "axis1 2"),
    (lambda: skiff.flatten(X, 0, 2), "flatten", "stop_axis 2"),
    (lambda: skiff.gather(X, skiff.to_tensor([0]), 2), "gather", "axis 2"),
    (lambda: skiff.index_select(X, skiff.to_tensor([0]), -3), "index_select", "axis -3"),
    (lambda: skiff.take_along_axis(X, skiff.zeros([2, 1], "int64"), 2), "take_along_axis",
     "axis 2"),
    (lambda: skiff.put_along_axis(X, skiff.zeros([2, 1], "int64"), 1.0, 2),
     "put_along_axis", "axis 2"),
    (lambda: skiff.diagonal(X, 0, 0, 2), "diagonal", "axis2 2"),
    (lambda: skiff.trace(X, 0, 0, 5), "trace", "axis2 5"),
    (lambda: skiff.narrow(X, 2, 0, 1), "narrow", "dim 2"),
    (lambda: skiff.repeat_interleave(X, 2, 2), "repeat_interleave", "axis 2"),
    (lambda: skiff.tensor_split(X, 2, axis=2), "tensor_split", "axis 2"),
    (lambda: skiff.median(X, 2), "median", "axis 2"),
    (lambda: skiff.quantile(X, 0.5, axis=[0, 5]), "quantile", "axis 5"),
    (lambda: skiff.norm(X, 2, axis=2), "norm", "axis 2"),
    (lambda: skiff.diff(X, axis=-3), "diff", "axis -3"),
    (lambda: skiff.rot90(X, 1, [0, 2]), "rot90", "axes 2"),
    (lambda: skiff.all(X, 10**20), "all", f"axis {10**20}"),
])
def test_axis_errors_name_the_public_function(call, fn, what):
    with pytest.raises(AxisError) as info:
        call()
    message = str(info.value)
    assert message.startswith(fn + ":") and what in message, message
    assert isinstance(info.value, ValueError) and isinstance(info.value, IndexError)
    assert isinstance(info.value, skiff.Error)


def test_axis_pairs_and_lengths():
    with _raises(ArgumentError, "diagonal", "axis1 and axis2 must differ"):
        skiff.diagonal(X, 0, 1, -1)
    with _raises(ArgumentError, "diagonal", "at least 2 dims"):
        skiff.diagonal(skiff.to_tensor(1.5))
    with _raises(ArgumentError, "transpose", "more than once"):
        skiff.transpose(X, [0, 0])
    with _raises(ArgumentError, "moveaxis", "one length"):
        skiff.moveaxis(X, [0, 1], [1])
    with _raises(ArgumentError, "roll", "one length"):
        skiff.roll(X, [1, 1], [0])
    with _raises(ArgumentError, "flatten", "stop_axis 0 comes before start_axis 1"):
        skiff.flatten(X, 1, 0)
    with _raises(ArgumentError, "diag", "1-D or 2-D"):
        skiff.diag(skiff.ones([2, 2, 2]))
    with _raises(ArgumentTypeError, "diag", "offset", "float"):
        skiff.diag(X, 1.5)
    with _raises(ArgumentTypeError, "roll", "shifts", "float"):
        skiff.roll(X, 1.5, 0)


def test_valid_axis_forms_are_unchanged():
    np.testing.assert_array_equal(skiff.trace(skiff.eye(3)).numpy(), 3.0)
    batch = skiff.to_tensor(np.arange(18.0).reshape(2, 3, 3))
    np.testing.assert_allclose(skiff.trace(batch, 0, 1, 2).numpy(),
                               np.trace(np.arange(18.0).reshape(2, 3, 3), axis1=1, axis2=2))
    assert skiff.flip(X, (0, 1)).shape == [2, 3]
    assert skiff.unsqueeze(X, [0, 0]).shape == [1, 1, 2, 3]
    assert skiff.unsqueeze(X, -1).shape == [2, 3, 1]
    assert skiff.stack([X, X], -3).shape == [2, 2, 3]
    assert skiff.swapaxes(X, 0, -1).shape == [3, 2]
    assert [t.shape for t in skiff.unbind(X, -1)] == [[2]] * 3
    assert skiff.roll(skiff.to_tensor(1.0), 1, 0).shape == []


# ---- wrong kinds ----

@pytest.mark.parametrize("call,fn,param,kind", [
    (lambda: skiff.bmm(X, -5), "bmm", "y", "int"),
    (lambda: skiff.matmul(X, None), "matmul", "y", "NoneType"),
    (lambda: skiff.add(X, "a"), "add", "y", "str"),
    (lambda: skiff.sum([1.0, 2.0]), "sum", "x", "list"),
    (lambda: skiff.exp(3), "exp", "x", "int"),
    (lambda: skiff.reshape(np.ones(3), [3]), "reshape", "x", "ndarray"),
    (lambda: skiff.gather(X, 1.5), "gather", "index", "float"),
    (lambda: skiff.where(X > 0, X, "b"), "where", "y", "str"),
    (lambda: skiff.cat(X), "concat", "x", "a float32 Tensor"),
    (lambda: skiff.concat(X), "concat", "x", "a float32 Tensor"),
    (lambda: skiff.stack(X), "stack", "x", "a float32 Tensor"),
    (lambda: skiff.concat([X, 1]), "concat", "x", "list"),
    (lambda: skiff.broadcast_tensors(X), "broadcast_tensors", "input", "a float32 Tensor"),
    (lambda: skiff.add_n(3), "add_n", "inputs", "int"),
    (lambda: skiff.masked_select(X, [True]), "masked_select", "mask", "list"),
    (lambda: skiff.linalg.inv("m"), "inv", "x", "str"),
    (lambda: X.add(None), "add", "y", "NoneType"),
    (lambda: skiff.is_empty(np.ones(3)), "is_empty", "x", "ndarray"),
    (lambda: skiff.index_sample(X, 5), "index_sample", "index", "int"),
    (lambda: skiff.assign(X, 5.0), "assign", "output", "float"),
    (lambda: skiff.take_along_axis(X, [[0]], 1), "take_along_axis", "indices", "list"),
])

def test_wrong_kinds_name_function_parameter_and_what_it_takes(call, fn, param, kind):
    with pytest.raises(ArgumentTypeError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"{fn}: {param} must be ") and message.endswith(f"got {kind}")


@pytest.mark.parametrize("fn", [skiff.add, skiff.multiply, skiff.maximum, skiff.equal,
                                skiff.remainder, skiff.logical_and])
def test_binary_functions_need_a_tensor_on_one_side(fn):
    with pytest.raises(ArgumentTypeError, match=rf"^{fn.__name__}: x or y must be a Tensor, "
                                                "got int and float$"):
        fn(1, 2.0)
    assert fn(X, 1).shape == [2, 3] and fn(1, X).shape == [2, 3]


def test_numbers_and_arrays_still_work_where_they_did():
    np.testing.assert_array_equal(skiff.add(X, 2).numpy(), np.full([2, 3], 3.0))
    np.testing.assert_array_equal(skiff.add(2, X).numpy(), np.full([2, 3], 3.0))
    np.testing.assert_array_equal(skiff.maximum(X, np.zeros([2, 3], "float32")).numpy(),
                                  np.ones([2, 3]))
    assert skiff.where(X > 0, 1.0, 2.0).shape == [2, 3]
    assert skiff.gather(X, [1]).shape == [1, 3]
    assert skiff.lerp(X, X, 0.5).shape == [2, 3]
    assert skiff.hstack([np.ones(2), np.ones(3)]).shape == [5]
    assert skiff.assign(np.ones(2)).shape == [2]
    assert skiff.is_tensor(3) is False and skiff.is_tensor(X) is True
    assert (X + 1).shape == [2, 3] and (1 - X).shape == [2, 3]
