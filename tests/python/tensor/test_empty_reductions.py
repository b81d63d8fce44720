"""Reductions over empty dims give numpy's neutral answers (sum 0, prod 1, all True, any
False, logsumexp -inf, mean/std/var/median NaN) or refuse naming the op where numpy
refuses (max, min, argmax, argmin: no identity)."""
import warnings

import numpy as np
import pytest

import skiff

X = np.zeros([0, 3], np.float32)


@pytest.mark.parametrize("name", ["sum", "prod", "all", "any", "mean", "std", "var", "nansum",
                                  "median", "count_nonzero"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_neutral_answers(name, axis):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = getattr(np, name)(X, axis=axis)
        if name in ("std", "var"):
            want = getattr(np, name)(X, axis=axis, ddof=1)  # Paddle's unbiased default
    got = getattr(skiff, name)(skiff.to_tensor(X), axis=axis)
    assert got.shape == list(np.shape(want))
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("axis", [0, None])
def test_logsumexp_of_nothing_is_minus_infinity(axis):
    got = skiff.logsumexp(skiff.to_tensor(X), axis=axis).numpy()
    assert np.all(np.isneginf(got)) and got.shape == (() if axis is None else (3,))


@pytest.mark.parametrize("name,op", [("max", "reduce_max"), ("min", "reduce_min"),
                                     ("argmax", "argmax"), ("argmin", "argmin")])
def test_reductions_without_identity_refuse_naming_the_op(name, op):
    with pytest.raises(skiff.Error, match=f"'{op}'.*no elements"):
        getattr(skiff, name)(skiff.to_tensor(X), axis=0)
