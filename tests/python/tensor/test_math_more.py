"""The special functions (tan ... digamma, atan2), the composed elementwise functions
(logit, hypot, sinc, copysign, heaviside, fmax, nansum, ...) and Paddle's arithmetic
aliases: values and gradients vs torch, dtype rules vs paddle, in-place variants, a static
program, ONNX export and errors."""
import numpy as np
import pytest
import torch

import skiff
from helpers import TOL, check_grad, rand

UNARY = [  # skiff name, torch function, domain
    ("tan", torch.tan, (-1.2, 1.2)), ("atan", torch.atan, (-4, 4)),
    ("asin", torch.asin, (-0.95, 0.95)), ("acos", torch.acos, (-0.95, 0.95)),
    ("sinh", torch.sinh, (-3, 3)), ("cosh", torch.cosh, (-3, 3)),
    ("asinh", torch.asinh, (-4, 4)), ("acosh", torch.acosh, (1.05, 5)),
    ("atanh", torch.atanh, (-0.95, 0.95)), ("erf", torch.erf, (-2.5, 2.5)),
    ("erfinv", torch.erfinv, (-0.95, 0.95)), ("expm1", torch.expm1, (-2, 2)),
    ("lgamma", torch.lgamma, (-3.9, 6)), ("gammaln", torch.lgamma, (0.1, 6)),
    ("digamma", torch.digamma, (-3.9, 6)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,tfn,domain", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_and_grads(name, tfn, domain, dtype):
    if dtype == "float32" and domain[0] < 0 and name in ("lgamma", "digamma"):
        domain = (0.1, domain[1])  # near the poles torch's float32 loses digits (f64 covers)
    a = rand((4, 6), dtype, seed=3, lo=domain[0], hi=domain[1])
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == "float32" else TOL[dtype]
    if name == "digamma" and dtype == "float64":
        tol = dict(rtol=1e-8, atol=1e-10)  # torch's trigamma is good to ~1e-10 (see below)
    check_grad(getattr(skiff, name), tfn, a, tol=tol)
    np.testing.assert_allclose(getattr(skiff.to_tensor(a), name)().numpy(),
                               tfn(torch.tensor(a)).numpy(), **tol)


def test_digamma_and_its_gradient_match_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 30
    v = np.array([-7.2, -3.052, -1.5556, 0.3, 1.8634, 4.0326, 13.5, 25.5])
    x = skiff.to_tensor(v, stop_gradient=False)
    out = skiff.digamma(x)
    out.sum().backward()
    np.testing.assert_allclose(out.numpy(), [float(mpmath.digamma(a)) for a in v], rtol=1e-13)
    np.testing.assert_allclose(x.grad.numpy(), [float(mpmath.psi(1, a)) for a in v],
                               rtol=1e-13)


def test_special_values_at_the_edges():
    inf = np.inf
    x = skiff.to_tensor(np.array([1.0, -1.0, 1.5, 0.0], "float64"))
    np.testing.assert_array_equal(skiff.erfinv(x).numpy(), [inf, -inf, np.nan, 0.0])
    d = skiff.digamma(skiff.to_tensor(np.array([0.0, -2.0, -2.5], "float64"))).numpy()
    assert d[0] == -inf and np.isnan(d[1])
    np.testing.assert_allclose(d[2], 1.1031566406452432, rtol=1e-13)
    np.testing.assert_allclose(skiff.expm1(skiff.to_tensor(np.array([1e-12]))).numpy(),
                               [np.expm1(1e-12)], rtol=1e-15)


@pytest.mark.parametrize("name", ["tan", "atan", "sinh", "erf", "expm1", "lgamma", "digamma",
                                  "asinh"])
def test_integer_inputs_compute_in_float32_like_paddle(name):
    import paddle
    a = np.array([1, 2, 3], "int64")
    out = getattr(skiff, name)(skiff.to_tensor(a))
    want = getattr(paddle, name)(paddle.to_tensor(a))
    assert out.dtype == skiff.float32
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5)


INPLACE = ["tan", "atan", "asin", "acos", "sinh", "cosh", "asinh", "atanh", "erf", "erfinv",
           "expm1", "lgamma", "gammaln", "digamma"]


@pytest.mark.parametrize("name", INPLACE)
def test_in_place_variants(name):
    a = rand((3, 4), "float32", seed=4, lo=0.1, hi=0.9)
    x = skiff.to_tensor(a)
    got = getattr(x, name + "_")()
    assert got is x
    np.testing.assert_allclose(x.numpy(), getattr(skiff, name)(skiff.to_tensor(a)).numpy(),
                               rtol=1e-6)
    y = skiff.to_tensor(a)
    getattr(skiff, name + "_")(y)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    with pytest.raises(TypeError, match=name.replace("gammaln", "lgamma") + "_"):
        getattr(skiff, name + "_")(skiff.to_tensor([1, 2]))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_atan2_values_grads_and_dtypes(dtype):
    x, y = rand((3, 4), dtype, seed=5, lo=-3, hi=3), rand((4,), dtype, seed=6, lo=-3, hi=3)
    check_grad(skiff.atan2, torch.atan2, x, y)
    axes = skiff.atan2(skiff.to_tensor(np.array([0.0, 1, 0, -1], dtype)),
                       skiff.to_tensor(np.array([1.0, 0, -1, 0], dtype)))
    np.testing.assert_allclose(axes.numpy(), [0, np.pi / 2, np.pi, -np.pi / 2], rtol=1e-7)
    ints = skiff.atan2(skiff.to_tensor([1, 2]), skiff.to_tensor([3, 4]))
    assert ints.dtype == skiff.float64  # as Paddle
    np.testing.assert_allclose(ints.numpy(), np.arctan2([1, 2], [3, 4]), rtol=1e-15)


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


def test_arithmetic_in_place_aliases():
    a, b = np.array([7.0, -7.0, 3.0], "float32"), np.array([2.0, 2.0, -4.0], "float32")
    x = skiff.to_tensor(a.copy())
    x.neg_()
    np.testing.assert_array_equal(x.numpy(), -a)
    x = skiff.to_tensor(a.copy())
    skiff.sub_(x, skiff.to_tensor(b), alpha=2)
    np.testing.assert_array_equal(x.numpy(), a - 2 * b)
    x = skiff.to_tensor(a.copy())
    x.div_(skiff.to_tensor(b), rounding_mode="floor")
    np.testing.assert_array_equal(x.numpy(), np.floor(a / b))
    for name, fn, want in [("trunc_", lambda t: t.trunc_(), np.trunc(a / 3)),
                           ("frac_", lambda t: t.frac_(), a / 3 - np.trunc(a / 3)),
                           ("logit_", lambda t: skiff.logit_(t, eps=0.1),
                            torch.logit(torch.tensor(a / 3), eps=0.1).numpy()),
                           ("hypot_", lambda t: t.hypot_(skiff.to_tensor(b)),
                            np.hypot(a / 3, b)),
                           ("copysign_", lambda t: t.copysign_(skiff.to_tensor(b)),
                            np.copysign(a / 3, b)),
                           ("lerp_", lambda t: t.lerp_(skiff.to_tensor(b), 0.25),
                            a / 3 + 0.25 * (b - a / 3)),
                           ("sinc_", lambda t: t.sinc_(), np.sinc(a / 3))]:
        x = skiff.to_tensor(a / 3)
        fn(x)
        np.testing.assert_allclose(x.numpy(), want, rtol=1e-6, err_msg=name)
    with pytest.raises(TypeError, match="div_"):
        skiff.div_(skiff.to_tensor([1, 2]), skiff.to_tensor([2, 2]))


def test_static_program_matches_eager():
    st = pytest.importorskip("skiff.static")
    a = rand((3, 4), "float32", seed=9, lo=0.1, hi=0.9)

    def expr(x):
        return (skiff.tan(x) + skiff.erfinv(x) + skiff.lgamma(x) * skiff.digamma(x)
                + skiff.atan2(x, 1.0 - x) + skiff.hypot(x, x) + skiff.logit(x, 0.2)
                + skiff.sinc(x) + skiff.fmax(x, 0.5) + skiff.nansum(x, axis=0))

    x = skiff.to_tensor(a, stop_gradient=False)
    out = expr(x)
    (out * out).sum().backward()
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            v = st.data("x", [3, 4], "float32")
            v.stop_gradient = False
            y = expr(v)
            grads = st.gradients([skiff.sum(y * y)], [v])
            exe = st.Executor(skiff.CPUPlace())
            exe.run(startup)
            got, grad = exe.run(main, feed={"x": a}, fetch_list=[y, grads[0]])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(got, out.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, x.grad.numpy(), rtol=1e-4, atol=1e-4)


def test_onnx_export_of_the_unary_ops(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    from skiff.static import InputSpec
    a = rand((2, 5), "float32", seed=10, lo=0.1, hi=0.9)

    @skiff.jit.not_to_static
    def fn(x):
        return [skiff.tan(x), skiff.atan(x), skiff.asin(x), skiff.acos(x), skiff.sinh(x),
                skiff.cosh(x), skiff.asinh(x), skiff.acosh(x + 1.5), skiff.atanh(x),
                skiff.erf(x), skiff.expm1(x)]

    def run(x):
        return fn(x)

    static = skiff.jit.to_static(run)
    path = skiff.onnx.export(static, str(tmp_path / "unary"),
                             input_spec=[InputSpec([2, 5], "float32")])
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: a})
    want = static(skiff.to_tensor(a))
    assert len(got) == len(want) == 11
    for k, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-6, err_msg=f"output {k}")


def test_errors_name_the_function_and_argument():
    f = skiff.to_tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="erf.*bool"):
        skiff.erf(skiff.to_tensor([True]))
    with pytest.raises(TypeError, match="atan2.*list"):
        skiff.atan2(f, [1.0, 2.0])
    with pytest.raises(ValueError, match="div.*rounding_mode.*'round'"):
        skiff.div(f, f, rounding_mode="round")
    with pytest.raises(TypeError, match="nanmean.*int64"):
        skiff.nanmean(skiff.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="positive.*bool"):
        skiff.positive(skiff.to_tensor([True]))
    with pytest.raises(TypeError, match="sinc.*int64"):
        skiff.sinc(skiff.to_tensor([1, 2]))
    with pytest.raises(TypeError, match="hypot: y"):
        skiff.hypot(f, 2.0)
    with pytest.raises(skiff.Error, match="atan2"):
        skiff.atan2(f, skiff.to_tensor([1.0, 2.0, 3.0]))
