"""The shape, dtype, fill and bound arguments of the creation and random functions are
checked by one converter each (framework/arguments.py: shape, dtype, number): a wrong kind is
an ArgumentTypeError, a wrong value an ArgumentError, each naming the public function and the
argument; valid arguments make the tensors they made before."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import ArgumentError, ArgumentTypeError


def _raises(error, fn, *words):
    """pytest.raises for ``error`` whose message starts with "fn:" and holds ``words``."""
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


SHAPED = [("zeros", ()), ("ones", ()), ("empty", ()), ("full", (1.0,)), ("rand", ()),
          ("randn", ()), ("standard_normal", ()), ("uniform", ())]


@pytest.mark.parametrize("fn, rest", SHAPED)
@pytest.mark.parametrize("shape", [-3.5, None, "none", True, [2.0, 3], [True, 2], {"a": 1}])
def test_shapes_of_the_wrong_kind_are_type_errors(fn, rest, shape):
    with _raises(ArgumentTypeError, fn, "shape"):
        getattr(skiff, fn)(shape, *rest)


@pytest.mark.parametrize("fn, rest", SHAPED)
def test_negative_dims_are_refused_naming_the_entry(fn, rest):
    with _raises(ArgumentError, fn, r"shape\[1\]", "-2"):
        getattr(skiff, fn)([3, -2], *rest)
    with _raises(ArgumentError, fn, "shape must be >= 0", "-1"):
        getattr(skiff, fn)(-1, *rest)


def test_shapes_take_ints_lists_and_integer_tensors():
    cases = [(3, [3]), ([3], [3]), ((2, 3), [2, 3]), ([], []), (np.int64(3), [3]),
             ([np.int32(2), 3], [2, 3]), (skiff.to_tensor([2, 3]), [2, 3]),
             ([skiff.to_tensor(2), 3], [2, 3]), ([skiff.to_tensor([2]), 3], [2, 3]),
             (np.array([2, 3]), [2, 3])]
    for shape, dims in cases:
        out = skiff.zeros(shape)
        assert out.shape == dims and out.dtype == skiff.float32
    # (Paddle 3.x: a fill value without a dtype gives the default float dtype, ints too)
    assert skiff.full((), 7).shape == [] and skiff.full((), 7).dtype == skiff.float32
    with _raises(ArgumentTypeError, "zeros", "float32 Tensor"):
        skiff.zeros(skiff.to_tensor([2.0]))


@pytest.mark.parametrize("dtype", [{"a": 1}, b"ab", 5, np.ones(3), ("inf", 1.0)])
@pytest.mark.parametrize("fn", ["zeros", "ones", "rand", "randn"])
def test_dtypes_of_the_wrong_kind_are_type_errors(fn, dtype):
    with _raises(ArgumentTypeError, fn, "dtype", "is not a dtype"):
        getattr(skiff, fn)([2], dtype)


def test_unknown_dtype_names_are_value_errors():
    with _raises(ArgumentError, "zeros", "dtype", "unknown dtype 'foo'"):
        skiff.zeros([2], "foo")
    with _raises(ArgumentError, "randperm", "dtype"):
        skiff.randperm(3, dtype="foo")
    with _raises(ArgumentTypeError, "eye", "dtype"):
        skiff.eye(3, dtype=b"ab")
    with _raises(ArgumentTypeError, "full_like", "dtype"):
        skiff.full_like(skiff.ones([2]), 1.0, dtype={"a": 1})


def test_dtype_limits_name_themselves():
    with _raises(ArgumentTypeError, "iinfo", "dtype"):
        skiff.iinfo(b"ab")
    with _raises(ArgumentTypeError, "finfo", "dtype"):
        skiff.finfo({"a": 1})
    assert skiff.iinfo("int32").max == 2**31 - 1 and skiff.finfo(skiff.float64).bits == 64


def test_fill_values():
    with _raises(ArgumentTypeError, "full", "fill_value", "tuple"):
        skiff.full(1, ())
    with _raises(ArgumentError, "full", "fill_value", "'x'"):
        skiff.full([2], "x")
    with _raises(ArgumentTypeError, "full_like", "fill_value", "DType"):
        skiff.full_like(skiff.ones([2]), skiff.int32)
    np.testing.assert_array_equal(skiff.full([2], "1.5").numpy(), [1.5, 1.5])
    assert skiff.full([2], True).dtype == skiff.bool
    assert skiff.full([2], skiff.to_tensor(3.0)).numpy().tolist() == [3.0, 3.0]


def test_eye_linspace_arange_range_and_triangles():
    with _raises(ArgumentTypeError, "eye", "num_rows", "NoneType"):
        skiff.eye(None)
    with _raises(ArgumentError, "eye", "num_rows", "-1"):
        skiff.eye(-1)
    with _raises(ArgumentTypeError, "eye", "num_rows"):
        skiff.eye("int64")
    assert skiff.eye(skiff.to_tensor(3)).shape == [3, 3]
    with _raises(ArgumentError, "linspace", "num", "-1"):
        skiff.linspace(0, 1, -1)
    with _raises(ArgumentTypeError, "linspace", "stop", "tuple"):
        skiff.linspace(4, (), 1)
    assert skiff.linspace(0, 1, 5.0).shape == [5]
    with _raises(ArgumentTypeError, "arange", "end", "str"):
        skiff.arange("int32")
    with _raises(ArgumentError, "arange", "more than a tensor holds"):
        skiff.arange(0, 1e20, 1e-20)
    assert skiff.arange(skiff.to_tensor(5)).dtype == skiff.int64
    with _raises(ArgumentTypeError, "range", "end", "NoneType"):
        skiff.range(None)
    with _raises(ArgumentError, "range", "finite"):
        skiff.range(0, float("nan"))
    with _raises(ArgumentTypeError, "logspace", "base", "list"):
        skiff.logspace(1, 1, 4, base=[1.0])
    with _raises(ArgumentTypeError, "tril_indices", "row", "list"):
        skiff.tril_indices([], 4)
    with _raises(ArgumentTypeError, "tril", "diagonal", "NoneType"):
        skiff.tril(skiff.ones([2, 2]), None)
    with _raises(ArgumentTypeError, "triu", "diagonal", "float"):
        skiff.triu(skiff.ones([2, 2]), 1.5)


def test_meshgrid_takes_zero_or_one_dim_tensors():
    for bad in (2.0, 0, np.int64(3)):
        with _raises(ArgumentTypeError, "meshgrid", r"args\[0\]", "must be a Tensor"):
            skiff.meshgrid(bad)
    with _raises(ArgumentError, "meshgrid", "at least one"):
        skiff.meshgrid([])
    with _raises(ArgumentError, "meshgrid", r"args\[1\]", "0-D or 1-D"):
        skiff.meshgrid(skiff.ones([2]), skiff.ones([2, 2]))
    a, b = skiff.meshgrid(skiff.to_tensor(2.0), skiff.ones([3]))
    assert a.shape == b.shape == [1, 3]


def test_random_functions():
    with _raises(ArgumentError, "normal", "shape is needed"):
        skiff.normal()
    with _raises(ArgumentTypeError, "uniform", "min", "str"):
        skiff.uniform([2], min="a")
    with _raises(ArgumentTypeError, "uniform", "seed"):
        skiff.uniform([2], seed="nan")
    with _raises(ArgumentTypeError, "randint", "low", "NoneType"):
        skiff.randint(low=None)
    with _raises(ArgumentError, "randint", "high"):
        skiff.randint(5, 5)
    with _raises(ArgumentTypeError, "bernoulli_", "p", "tuple"):
        skiff.bernoulli_(skiff.ones([2]), p=(1,))
    with _raises(ArgumentTypeError, "multinomial", "num_samples"):
        skiff.multinomial(skiff.ones([4]), ())
    with _raises(ArgumentTypeError, "log_normal", "std", "list"):
        skiff.log_normal(-1, [[1, 2]], shape=[1])
    for fn, kw in (("normal_", {"std": ()}), ("log_normal_", {"std": None}),
                   ("cauchy_", {"loc": "x"}), ("exponential_", {"lam": None}),
                   ("geometric_", {"probs": object()})):
        with _raises(ArgumentTypeError, fn, next(iter(kw))):
            getattr(skiff, fn)(skiff.ones([2]), **kw)
    assert skiff.normal(0.0, 2.0, [3]).shape == [3]
    assert skiff.randint(5, shape=[2, 3]).dtype == skiff.int64
    assert skiff.rand_like(skiff.ones([2]), dtype="float64").dtype == skiff.float64


def test_data_that_holds_no_numbers_is_refused_naming_the_function():
    with _raises(ArgumentTypeError, "to_tensor", "data", "str"):
        skiff.to_tensor("NCHW", dtype=skiff.int8)
    with _raises(ArgumentTypeError, "to_tensor", "data", "NoneType"):
        skiff.to_tensor([None])
    with _raises(ArgumentError, "to_tensor", "data", "ragged"):
        skiff.to_tensor([(), 1])
    with _raises(ArgumentError, "to_tensor", "data", str(2**70)):
        skiff.to_tensor([1, 2**70])
    with _raises(ArgumentError, "add", "y", "64 bits"):
        skiff.ones([2]) + [1, 2**64]
    with _raises(ArgumentError, "greater_equal", "y", "ragged"):
        skiff.ones([2]).greater_equal_(([(), 1],))
    with _raises(ArgumentError, "assign", "x", "ragged"):
        skiff.assign(skiff.nn.Linear(3, 3).parameters())
    with _raises(ArgumentTypeError, "atleast_2d", r"inputs\[0\]", "str"):
        skiff.atleast_2d("a")
