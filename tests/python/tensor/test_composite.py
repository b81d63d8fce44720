"""The elementwise functions composed of other ops (skiff/tensor/composite.py): logit,
hypot, sinc, copysign, heaviside, fmax, signbit, nansum/nanmean, ... (values and gradients vs
torch, the sign bit, all-NaN rows), Paddle's integer dtype rules, ldexp and frexp against
torch and paddle."""
import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import TOL, check_grad, rand

SIGNS = np.array([-1.0, 2.0, -0.0, 0.0, -3.0])


COMPOSED = [  # name, skiff function, torch function, input domains
    ("logit", skiff.logit, torch.logit, [(0.05, 0.95)]),
    ("logit_eps", lambda x: skiff.logit(x, eps=0.2), lambda x: torch.logit(x, eps=0.2),
     [(0.01, 0.99)]),
    ("rad2deg", skiff.rad2deg, torch.rad2deg, [(-3, 3)]),
    ("deg2rad", skiff.deg2rad, torch.deg2rad, [(-200, 200)]),
    ("hypot", skiff.hypot, torch.hypot, [(-3, 3), (-3, 3)]),
    ("sinc", skiff.sinc, torch.sinc, [(-2.5, 2.5)]),
    ("frac", skiff.frac, torch.frac, [(-4, 4)]),
    ("copysign", lambda x: skiff.copysign(x, skiff.to_tensor(SIGNS.astype(x.numpy().dtype))),
     lambda x: torch.copysign(x, torch.tensor(SIGNS, dtype=x.dtype)), [(-3, 3)]),
    ("lerp", skiff.lerp, torch.lerp, [(-2, 2), (-2, 2), (0, 1)]),
    ("lerp_scalar", lambda x, y: skiff.lerp(x, y, 0.3), lambda x, y: torch.lerp(x, y, 0.3),
     [(-2, 2), (-2, 2)]),
    ("fmax", skiff.fmax, torch.fmax, [(-2, 2), (-2, 2)]),
    ("fmin", skiff.fmin, torch.fmin, [(-2, 2), (-2, 2)]),
    ("nansum", lambda x: skiff.nansum(x, axis=1), lambda x: torch.nansum(x, dim=1),
     [(-2, 2)]),
    ("nanmean", lambda x: skiff.nanmean(x, axis=[0, 1], keepdim=True),
     lambda x: torch.nanmean(x, dim=[0, 1], keepdim=True), [(-2, 2)]),
    ("div_trunc", lambda x, y: skiff.div(x, y, rounding_mode="trunc"),
     lambda x, y: torch.div(x, y, rounding_mode="trunc"), [(-5, 5), (0.5, 2)]),
    ("div_floor", lambda x, y: skiff.div(x, y, rounding_mode="floor"),
     lambda x, y: torch.div(x, y, rounding_mode="floor"), [(-5, 5), (0.5, 2)]),
    ("div", skiff.div, torch.div, [(-5, 5), (0.5, 2)]),
    ("sub_alpha", lambda x, y: skiff.sub(x, y, alpha=2.5),
     lambda x, y: torch.sub(x, y, alpha=2.5), [(-2, 2), (-2, 2)]),
    ("mul", skiff.mul, torch.mul, [(-2, 2), (-2, 2)]),
    ("true_divide", skiff.true_divide, torch.true_divide, [(-2, 2), (0.5, 2)]),
    ("negative", skiff.negative, torch.negative, [(-2, 2)]),
    ("positive", skiff.positive, torch.positive, [(-2, 2)]),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,fn,tfn,domains", COMPOSED, ids=[c[0] for c in COMPOSED])
def test_composed_values_and_grads(name, fn, tfn, domains, dtype):
    arrays = [rand((3, 5), dtype, seed=7 + k, lo=lo, hi=hi) for k, (lo, hi) in enumerate(domains)]
    if name.startswith("nan"):
        arrays[0][0, 1] = arrays[0][2, 3] = np.nan
    if name in ("fmax", "fmin"):
        arrays[0][0, 0] = arrays[1][1, 1] = np.nan
    if name == "sinc":
        arrays[0][1, 2] = 0.0  # sinc(0) = 1, gradient 0
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == "float32" else TOL[dtype]
    check_grad(fn, tfn, *arrays, tol=tol)


def test_sign_functions_follow_the_sign_bit():
    a = np.array([-1.5, 0.0, -0.0, 2.0, -np.inf], "float32")
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal(skiff.signbit(x).numpy(), torch.signbit(torch.tensor(a)))
    np.testing.assert_array_equal(skiff.signbit(skiff.to_tensor([-2, 0, 3])).numpy(),
                                  [True, False, False])
    mag = skiff.to_tensor(np.array([1.0, 2, 3, 4, 5], "float32"))
    np.testing.assert_array_equal(skiff.copysign(mag, x).numpy(),
                                  torch.copysign(torch.tensor(mag.numpy()), torch.tensor(a)))
    np.testing.assert_array_equal(skiff.copysign(mag, -0.0).numpy(), -mag.numpy())
    h = skiff.heaviside(x, skiff.to_tensor(np.array([0.5], "float32")))
    np.testing.assert_array_equal(h.numpy(), [0, 0.5, 0.5, 1, 0])
    hi = skiff.heaviside(skiff.to_tensor([-2, 0, 3]), skiff.to_tensor([7]))
    assert hi.dtype == skiff.int64 and hi.numpy().tolist() == [0, 7, 1]


def test_integer_rules_like_paddle():
    import paddle
    a, b = np.array([7, -7, 9], "int64"), np.array([2, 2, -4], "int64")
    for mode in (None, "trunc", "floor"):
        got = skiff.div(skiff.to_tensor(a), skiff.to_tensor(b), rounding_mode=mode)
        want = paddle.div(paddle.to_tensor(a), paddle.to_tensor(b), rounding_mode=mode)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1], mode
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    for name in ("rad2deg", "deg2rad", "hypot", "logit"):
        args = [paddle.to_tensor(a)] * (2 if name == "hypot" else 1)
        got = getattr(skiff, name)(*[skiff.to_tensor(a)] * len(args))
        assert got.dtype == skiff.float32
        np.testing.assert_allclose(got.numpy(), getattr(paddle, name)(*args).numpy(), rtol=1e-6)
    assert skiff.frac(skiff.to_tensor(a)).numpy().tolist() == [0, 0, 0]
    assert skiff.nansum(skiff.to_tensor(a)).dtype == skiff.int64
    assert skiff.fmax(skiff.to_tensor(a), skiff.to_tensor(b)).numpy().tolist() == [7, 2, 9]
    assert skiff.negative(skiff.to_tensor(a)).numpy().tolist() == [-7, 7, -9]


def test_nan_reductions_of_all_nan_rows():
    a = np.array([[np.nan, np.nan], [1.0, 2.0]], "float32")
    np.testing.assert_array_equal(skiff.nanmean(skiff.to_tensor(a), axis=1).numpy(),
                                  [np.nan, 1.5])
    np.testing.assert_array_equal(skiff.nansum(skiff.to_tensor(a), axis=1).numpy(), [0, 3])
    assert float(skiff.nanmean(skiff.to_tensor(a))) == 1.5


def test_ldexp_matches_torch_and_paddle():
    a = rand((3, 4))
    e = np.array([[3, -1, 0, 10]] * 3)
    check_grad(lambda x: skiff.ldexp(x, skiff.to_tensor(e)),
               lambda x: torch.ldexp(x, torch.tensor(e)), a)
    got = skiff.ldexp(skiff.to_tensor([1, 2]), skiff.to_tensor([3, -1]))
    want = paddle.ldexp(paddle.to_tensor([1, 2]), paddle.to_tensor([3, -1]))
    assert got.dtype.name == "float32"
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    x = skiff.to_tensor([1, 2])
    skiff.ldexp_(x, skiff.to_tensor([3, 1]))
    np.testing.assert_array_equal(x.numpy(), [8.0, 4.0])
    with pytest.raises(TypeError, match="ldexp: y must be a Tensor"):
        skiff.ldexp(skiff.to_tensor([1.0]), 2)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_frexp_is_exact(dtype):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(500) * np.exp(rng.uniform(-60, 60, 500))).astype(dtype)
    a = np.concatenate([a, np.array([0.0, -0.0, 1.0, 0.5, -4.0, 1 - 2.0**-24, 3e38, 1e-37],
                                    dtype)])
    m, e = skiff.frexp(skiff.to_tensor(a))
    want_m, want_e = np.frexp(a)
    assert e.dtype.name == dtype
    np.testing.assert_array_equal(m.numpy(), want_m)
    np.testing.assert_array_equal(e.numpy(), want_e)
    pm, pe = paddle.frexp(paddle.to_tensor(a[:100]))
    np.testing.assert_array_equal(m.numpy()[:100], pm.numpy())
    np.testing.assert_array_equal(e.numpy()[:100], pe.numpy())
    special_m, special_e = skiff.frexp(skiff.to_tensor(np.array([np.inf, np.nan], dtype)))
    assert np.isinf(special_m.numpy()[0]) and np.isnan(special_m.numpy()[1])
    np.testing.assert_array_equal(special_e.numpy(), [1, np.nan])  # as Paddle
    with pytest.raises(TypeError, match="frexp: x must be float"):
        skiff.frexp(skiff.to_tensor([1, 2]))
