"""The inputs to_tensor, assign and full take and the dtype they infer, each checked
against Paddle: numpy scalars, lists holding Tensors (0-d or not) among numbers, bool,
int and float mixes, place= and stop_gradient=, a Tensor as data, dtype names."""
import numpy as np
import pytest

import skiff

paddle = pytest.importorskip("paddle")


def _form(t):
    """What a test compares: dtype name, shape, values and stop_gradient."""
    return str(t.dtype).split(".")[-1], list(t.shape), t.numpy().tolist(), t.stop_gradient


def _same(make):
    """make(lib) gives the same tensor under skiff as under Paddle."""
    assert _form(make(skiff)) == _form(make(paddle))


@pytest.mark.parametrize("data", [np.float64(1.5), np.float32(1.5), np.int32(3),
                                  np.int64(-2), np.bool_(True), np.array(2.5)],
                         ids=lambda v: f"{type(v).__name__}")
def test_numpy_scalars_keep_their_dtype(data):
    _same(lambda lib: lib.to_tensor(data))


@pytest.mark.parametrize("make", [
    lambda lib: [lib.to_tensor(1.0), 2.0],                      # float32 Tensor, float
    lambda lib: [lib.to_tensor(1.0), 2],                        # float32 Tensor, int
    lambda lib: [lib.to_tensor(1), lib.to_tensor(2)],           # 0-d int64 Tensors
    lambda lib: [lib.to_tensor(1, dtype="int32"), lib.to_tensor(2, dtype="int32")],
    lambda lib: [lib.to_tensor(1.5, dtype="float64"), 2.0],
    lambda lib: [lib.to_tensor(1), lib.to_tensor(2.5)],         # int64 and float32 Tensors
    lambda lib: [lib.to_tensor(True), lib.to_tensor(False)],
    lambda lib: [lib.to_tensor([1.0, 2.0]), lib.to_tensor([3.0, 4.0])],
    lambda lib: [np.float64(1.5), lib.to_tensor(2.0)],
    lambda lib: [[lib.to_tensor(1.0), 2.0], [3.0, lib.to_tensor(4.0)]],  # nested deeper
], ids=["f32-float", "f32-int", "int64s", "int32s", "f64-float", "int-float", "bools",
        "rows", "npf64-f32", "nested"])
def test_lists_holding_tensors(make):
    """A list with a Tensor among its items takes numpy's dtype for them all (float64
    stays); Tensors deeper in do not change the default float dtype."""
    _same(lambda lib: lib.to_tensor(make(lib)))


@pytest.mark.parametrize("data", [[True, 1], [True, 1.5], [1, 2.5], [True, False], 3, 3.0,
                                  True, (1, 2), [(1, 2), [3, 4]], [np.int32(1), np.int32(2)],
                                  [np.float64(1.5), np.float64(2)], [np.float32(1.5), 2],
                                  [2**40]], ids=repr)
def test_python_data_dtype_inference(data):
    _same(lambda lib: lib.to_tensor(data))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "int32", "float64", "bool",
                                   np.float64, np.dtype("int32"), "paddle.float64"])
def test_dtype_names(dtype):
    _same(lambda lib: lib.to_tensor([1, 0], dtype=getattr(lib, "float64")
                                    if dtype == "paddle.float64" else dtype))


@pytest.mark.parametrize("array", [np.array([1, 2], t) for t in
                                   ("int8", "uint8", "int16", "int32", "int64", "float64",
                                    "bool")], ids=lambda a: str(a.dtype))
def test_arrays_keep_their_dtype(array):
    _same(lambda lib: lib.to_tensor(array))


def test_place_stop_gradient_and_tensor_data():
    _same(lambda lib: lib.to_tensor([1.0], place=lib.CPUPlace(), stop_gradient=False))
    _same(lambda lib: lib.to_tensor([1.0], place="cpu"))
    _same(lambda lib: lib.to_tensor(lib.to_tensor([1, 2]), dtype="float32"))
    _same(lambda lib: lib.to_tensor(lib.to_tensor([1.0, 2.0], stop_gradient=False)))
    x = skiff.to_tensor([1.0, 2.0])
    y = skiff.to_tensor(x)
    y[0] = 5.0
    assert x.tolist() == [1.0, 2.0]  # a copy, as Paddle's


@pytest.mark.parametrize("data", [3, 2.5, True, np.float64(1.5), [1.5, 2], [[1, 2]],
                                  (True, False), np.array([1, 2], "int32")], ids=repr)
def test_assign_data(data):
    """assign makes a number a one-element 1-D tensor and keeps numpy's dtype of a list."""
    _same(lambda lib: lib.assign(data))


@pytest.mark.parametrize("fill", [3, 2.5, True, np.float64(3.0), "3.5"], ids=repr)
def test_full_fill_value_dtype(fill):
    """Without dtype, full is bool for a Python bool and the default float dtype else."""
    _same(lambda lib: lib.full([2], fill))
    _same(lambda lib: lib.full([2], fill, dtype="float64"))


def test_shapes_given_as_arrays_tensors_and_numpy_ints():
    _same(lambda lib: lib.zeros(np.array([2, 3])))
    _same(lambda lib: lib.zeros(lib.to_tensor([2, 3])))
    _same(lambda lib: lib.zeros([lib.to_tensor(2), np.int32(3)]))
    _same(lambda lib: lib.full([lib.to_tensor(2), 2], lib.to_tensor(3.0)))
    _same(lambda lib: lib.ones(3))
