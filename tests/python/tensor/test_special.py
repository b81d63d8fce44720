"""The special functions (skiff/tensor/special.py: tan ... digamma, atan2): values and
gradients vs torch (digamma vs mpmath), edge values, integer inputs computing in float32 like
paddle, in-place variants; a static program and the errors, with the composed functions;
ONNX export."""
import numpy as np
import pytest
import torch

import skiff

from tensor_reference import TOL, check_grad, rand

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
