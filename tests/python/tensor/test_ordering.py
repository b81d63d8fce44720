"""Running and order statistics: cumprod, logcumsumexp, cummax/cummin (values and
gradients against torch), unique / unique_consecutive (every return combination against
paddle), nanmedian / quantile / nanquantile (paddle's values and argument rules, torch's
gradients), a static program, and the errors."""
import itertools

import numpy as np
import paddle
import pytest
import torch

import skiff

from tensor_reference import TOL, check_grad, rand

st = pytest.importorskip("skiff.static")
NAN = float("nan")


def _paddle(fn, *args, **kwargs):
    out = fn(*args, **kwargs)
    return [o.numpy() for o in out] if isinstance(out, (tuple, list)) else out.numpy()


# ---- cumprod ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cumprod_values_and_grads(dtype, dim):
    a = rand((4, 5), dtype, seed=2, lo=0.5, hi=1.5)
    check_grad(lambda x: skiff.cumprod(x, dim), lambda x: torch.cumprod(x, dim), a)


def test_cumprod_grads_with_zeros():
    a = np.array([[1.5, 0, 2, -1, 3], [0.5, 2, 0, 4, 0], [0, 1.2, -0.7, 2, 1.1]], "float64")
    for dim in (0, 1):
        check_grad(lambda x: skiff.cumprod(x, dim), lambda x: torch.cumprod(x, dim), a)


def test_cumprod_flattens_casts_and_writes_in_place():
    a = np.arange(1, 7).reshape(2, 3)
    got = skiff.cumprod(skiff.to_tensor(a))
    assert got.shape == [6] and got.dtype == skiff.int64
    np.testing.assert_array_equal(got.numpy(), _paddle(paddle.cumprod, paddle.to_tensor(a)))
    f = skiff.cumprod(skiff.to_tensor(a), 1, dtype="float64")
    assert f.dtype == skiff.float64
    np.testing.assert_array_equal(f.numpy(), np.cumprod(a, 1))
    x = skiff.to_tensor(a.astype("float32"))
    assert x.cumprod_(0) is x
    np.testing.assert_array_equal(x.numpy(), np.cumprod(a, 0))
    flat = skiff.to_tensor(a.astype("float32"))
    skiff.cumprod_(flat)
    assert flat.shape == [6]
    out = skiff.zeros([2, 3], "int64")
    skiff.cumprod(skiff.to_tensor(a), 0, out=out)
    np.testing.assert_array_equal(out.numpy(), np.cumprod(a, 0))
    assert skiff.to_tensor(a).cumprod(dim=1).numpy()[1, 2] == 120


# ---- logcumsumexp ----

@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, None])
def test_logcumsumexp_values_and_grads(dtype, axis):
    a = rand((3, 6), dtype, seed=3, lo=-4, hi=4)
    ref = (lambda x: torch.logcumsumexp(x.flatten(), 0)) if axis is None else \
        (lambda x: torch.logcumsumexp(x, axis))
    check_grad(lambda x: skiff.logcumsumexp(x, axis), ref, a)


def test_logcumsumexp_is_stable_for_large_and_infinite_values():
    a = np.array([[800.0, 805.0, -np.inf, 790.0], [2.0, -np.inf, -np.inf, 1.0]], "float64")
    check_grad(lambda x: skiff.logcumsumexp(x, 1), lambda x: torch.logcumsumexp(x, 1), a)
    ints = skiff.logcumsumexp(skiff.to_tensor([1, 3, 3, 2]))
    assert ints.dtype == skiff.float32
    np.testing.assert_allclose(ints.numpy(), _paddle(paddle.logcumsumexp,
                                                     paddle.to_tensor([1, 3, 3, 2])), rtol=1e-6)
    wide = skiff.logcumsumexp(skiff.to_tensor([[1.0, 2.0]]), dtype="float64")
    assert wide.dtype == skiff.float64 and wide.shape == [2]


# ---- cummax / cummin ----

@pytest.mark.parametrize("fn", ["cummax", "cummin"])
@pytest.mark.parametrize("axis", [0, 1])
def test_cum_extremes_values_indices_and_grads(fn, axis):
    a = rand((5, 4), "float64", seed=4)
    out = check_grad(lambda x: getattr(skiff, fn)(x, axis)[0],
                     lambda x: getattr(torch, fn)(x, axis)[0], a)
    idx = getattr(skiff, fn)(skiff.to_tensor(a), axis)[1]
    assert idx.dtype == skiff.int64 and out.shape == [5, 4]
    np.testing.assert_array_equal(idx.numpy(), getattr(torch, fn)(torch.tensor(a), axis)[1])


@pytest.mark.parametrize("fn", ["cummax", "cummin"])
def test_cum_extremes_ties_nan_ints_and_flattening(fn):
    data = [[1.0, 3.0, 3.0, 2.0], [NAN, 5.0, 0.0, NAN]]
    got_v, got_i = getattr(skiff, fn)(skiff.to_tensor(data), 1)
    want_v, want_i = getattr(torch, fn)(torch.tensor(data), 1)
    np.testing.assert_array_equal(got_v.numpy(), want_v.numpy())
    np.testing.assert_array_equal(got_i.numpy(), want_i.numpy())
    ints = [[1, 3, 3, 2], [4, 0, 4, 9]]
    v, i = getattr(skiff, fn)(skiff.to_tensor(ints), dtype="int32")
    pv, pi = _paddle(getattr(paddle, fn), paddle.to_tensor(ints), dtype="int32")
    assert i.dtype == skiff.int32 and v.shape == [8]
    np.testing.assert_array_equal(v.numpy(), pv)
    np.testing.assert_array_equal(i.numpy(), pi)
    assert len(skiff.to_tensor(ints).cummax(axis=0)) == 2


# ---- unique / unique_consecutive ----

U = np.array([[2, 3, 3], [1, 5, 3], [2, 3, 3]])


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=3)))
def test_unique_matches_paddle(axis, flags):
    for data in (U, U.astype("float32")):
        kw = dict(zip(["return_index", "return_inverse", "return_counts"], flags), axis=axis)
        got = skiff.unique(skiff.to_tensor(data), **kw)
        want = paddle.unique(paddle.to_tensor(data), **kw)
        got = got if isinstance(got, tuple) else (got,)
        want = want if isinstance(want, tuple) else (want,)
        assert len(got) == len(want) == 1 + sum(flags)
        for g, w in zip(got, want):
            assert g.shape == list(w.shape)
            np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("flags", list(itertools.product([False, True], repeat=2)))
def test_unique_consecutive_matches_paddle(axis, flags):
    data = np.array([[1, 1, 2], [1, 1, 2], [3, 3, 3], [1, 1, 2]], "float64")
    kw = dict(zip(["return_inverse", "return_counts"], flags), axis=axis, dtype="int32")
    got = skiff.unique_consecutive(skiff.to_tensor(data), **kw)
    want = paddle.unique_consecutive(paddle.to_tensor(data), **kw)
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == skiff.float64 or g.dtype == skiff.int32
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_unique_of_nan_scalar_and_method():
    got = skiff.unique(skiff.to_tensor([2.0, NAN, 1.0, NAN]), return_counts=True)
    np.testing.assert_array_equal(got[0].numpy(), [1.0, 2.0, NAN, NAN])
    np.testing.assert_array_equal(got[1].numpy(), [1, 1, 1, 1])
    assert skiff.unique(skiff.to_tensor(5)).numpy().tolist() == [5]
    assert skiff.to_tensor([3, 1, 3]).unique().numpy().tolist() == [1, 3]
    assert skiff.to_tensor([3, 3, 1]).unique_consecutive().numpy().tolist() == [3, 1]


# ---- nanmedian / quantile / nanquantile ----

Z = np.array([[1.0, NAN, 3.0, 2.0], [NAN, NAN, NAN, NAN], [4.0, 0.0, NAN, 7.0],
              [5.0, 1.0, 2.0, 8.0]], "float32")


@pytest.mark.parametrize("axis", [None, 0, 1, [0, 1]])
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("mode", ["avg", "min"])
def test_nanmedian_matches_paddle(axis, keepdim, mode):
    got = skiff.nanmedian(skiff.to_tensor(Z), axis, keepdim, mode)
    want = paddle.nanmedian(paddle.to_tensor(Z), axis, keepdim, mode)
    if isinstance(want, tuple):
        assert isinstance(axis, int) and mode == "min"
        for g, w in zip(got, want):
            assert g.shape == list(w.shape)
            np.testing.assert_array_equal(g.numpy(), w.numpy())
    else:
        assert got.shape == list(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)


def test_nanmedian_grads_and_int_input():
    a = rand((4, 6), "float64", seed=5)
    a[0, 2] = a[3, 1] = a[3, 4] = NAN

    def torch_avg(x):  # the mean of the two middle non-NaN values, with torch's sort
        rows = []
        for r in x:
            v = torch.sort(r[~torch.isnan(r)])[0]
            n = v.shape[0]
            rows.append((v[(n - 1) // 2] + v[n // 2]) / 2)
        return torch.stack(rows)
    check_grad(lambda x: skiff.nanmedian(x, 1), torch_avg, a)
    check_grad(lambda x: skiff.nanmedian(x, 1, mode="min")[0],
               lambda x: torch.nanmedian(x, 1)[0], a)
    ints = np.array([[3, 1, 2, 5], [4, 4, 9, 1]])
    got = skiff.nanmedian(skiff.to_tensor(ints), axis=1)
    assert got.dtype == skiff.int64
    np.testing.assert_array_equal(got.numpy(), _paddle(paddle.nanmedian, paddle.to_tensor(ints),
                                                       axis=1))


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("q", [0.5, [0.1, 0.5, 1.0], "tensor"])
@pytest.mark.parametrize("axis", [None, 1, -2, [0, 2]])
@pytest.mark.parametrize("keepdim", [False, True])
def test_quantiles_match_paddle(interpolation, q, axis, keepdim):
    a = rand((3, 4, 5), "float64", seed=6)
    a[1, 2, 3] = NAN
    for fn in ("quantile", "nanquantile"):
        sq = skiff.to_tensor([0.25, 0.75], dtype="float64") if q == "tensor" else q
        pq = paddle.to_tensor([0.25, 0.75], dtype="float64") if q == "tensor" else q
        got = getattr(skiff, fn)(skiff.to_tensor(a), sq, axis, keepdim, interpolation)
        want = getattr(paddle, fn)(paddle.to_tensor(a), pq, axis, keepdim, interpolation)
        assert got.shape == list(want.shape), fn
        np.testing.assert_allclose(got.numpy(), want.numpy(), **TOL["float64"], err_msg=fn)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_quantile_grads_match_torch(interpolation, dtype):
    a = rand((4, 7), dtype, seed=7)
    q = [0.2, 0.5, 0.9]
    tq = torch.tensor(q, dtype=getattr(torch, dtype))
    check_grad(lambda x: skiff.quantile(x, q, axis=1, interpolation=interpolation),
               lambda x: torch.quantile(x, tq, dim=1, interpolation=interpolation), a)
    b = a.copy()
    b[0, 3] = b[2, 0] = NAN
    check_grad(lambda x: skiff.nanquantile(x, 0.3, axis=0, interpolation=interpolation),
               lambda x: torch.nanquantile(x, 0.3, dim=0, interpolation=interpolation), b)
    # quantile: a row holding NaN gives NaN; its other rows' gradients are unaffected.
    got = skiff.quantile(skiff.to_tensor(b), 0.5, axis=1).numpy()
    assert np.isnan(got[0]) and np.isnan(got[2]) and not np.isnan(got[1])


def test_quantile_of_a_scalar_tensor_and_0d_q():
    got = skiff.quantile(skiff.to_tensor(3.0), skiff.to_tensor(0.3))
    assert got.shape == [] and got.item() == 3.0
    x = skiff.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(x.quantile(skiff.to_tensor(0.3), axis=0).numpy(), [1.6, 2.6],
                               rtol=1e-6)


# ---- a static program ----

def test_static_program_matches_eager():
    a = rand((3, 5), "float32", seed=8, lo=0.5, hi=1.5)

    def expr(x):
        values = skiff.cumprod(x, 1) + skiff.logcumsumexp(x, 0) + skiff.cummax(x, 1)[0]
        return values + skiff.quantile(x, 0.4, axis=1, keepdim=True)

    x = skiff.to_tensor(a, stop_gradient=False)
    eager = expr(x)
    (eager * eager).sum().backward()
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            xs = st.data("x", [3, 5], "float32")
            xs.stop_gradient = False
            out = expr(xs)
            uniq, counts = skiff.unique(xs * 0.0 + 1.0, return_counts=True)
            assert list(uniq.shape) == [-1]
            grads = st.gradients([skiff.sum(out * out)], [xs])
            exe = st.Executor(skiff.CPUPlace())
            exe.run(startup)
            got, grad, u, c = exe.run(main, feed={"x": a}, fetch_list=[out, grads[0], uniq,
                                                                        counts])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(got, eager.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(grad, x.grad.numpy(), rtol=1e-4, atol=1e-5)
    assert u.tolist() == [1.0] and c.tolist() == [15]


# ---- errors ----

def test_errors_name_the_function_and_argument():
    x = skiff.to_tensor([[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match="cumprod: dim 2"):
        skiff.cumprod(x, 2)
    with pytest.raises(ValueError, match="cummax: dtype must be int32 or int64"):
        skiff.cummax(x, 0, dtype="float32")
    with pytest.raises(ValueError, match="unique: dtype must be int32 or int64"):
        skiff.unique(x, dtype="float32")
    with pytest.raises(skiff.Error, match="unique.*axis 3"):
        skiff.unique(x, axis=3)
    with pytest.raises(skiff.Error, match="bool"):
        skiff.unique(skiff.to_tensor([True, False]))
    with pytest.raises(ValueError, match=r"quantile: q should be in range \[0, 1\]"):
        skiff.quantile(x, 1.5)
    with pytest.raises(ValueError, match="quantile: q should be in range"):
        skiff.quantile(x, skiff.to_tensor([0.5, -0.1]))
    with pytest.raises(ValueError, match="nanquantile: q should not be empty"):
        skiff.nanquantile(x, [])
    with pytest.raises(ValueError, match="quantile: interpolation must be one of"):
        skiff.quantile(x, 0.5, interpolation="cubic")
    with pytest.raises(ValueError, match="quantile: axis"):
        skiff.quantile(x, 0.5, axis=[0, 5])
    with pytest.raises(TypeError, match="quantile: x must be float32 or float64"):
        skiff.quantile(skiff.to_tensor([1, 2]), 0.5)
    with pytest.raises(ValueError, match="nanmedian: mode must be 'avg' or 'min'"):
        skiff.nanmedian(x, mode="max")
    with pytest.raises(TypeError, match="logcumsumexp: x must be a Tensor"):
        skiff.logcumsumexp([1.0, 2.0])


# ---- ONNX export ----

def test_unique_exports_to_onnx(tmp_path):
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from skiff.static import InputSpec

    class Distinct(skiff.nn.Layer):
        def forward(self, x):
            values, first, inverse, counts = skiff.unique(
                x, return_index=True, return_inverse=True, return_counts=True, dtype="int32")
            return values, first, inverse, counts, skiff.unique(x, axis=0)

    path = skiff.onnx.export(Distinct(), str(tmp_path / "unique"),
                             input_spec=[InputSpec([4, 3], "float32", "x")], opset_version=17)
    onnx.checker.check_model(onnx.load(path), full_check=True)
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    a = np.array([[2, 3, 3], [1, 5, 3], [2, 3, 3], [0, 0, 9]], "float32")
    got = session.run(None, {session.get_inputs()[0].name: a})
    want = Distinct()(skiff.to_tensor(a))
    assert len(got) == len(want) == 5
    for g, w in zip(got, want):
        assert g.dtype == w.numpy().dtype
        np.testing.assert_array_equal(g, w.numpy())
