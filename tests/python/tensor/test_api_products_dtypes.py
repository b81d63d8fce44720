"""kron, inner, ger, tensordot, vecdot, dist, cdist; logspace, tril/triu_indices,
as_tensor, from_numpy; rand_like, randn_like, bernoulli, multinomial; default dtype,
iinfo, finfo and dtype aliases: values vs paddle/torch, gradients vs torch."""
import numpy as np
import paddle
import pytest
import torch

import skiff
from helpers import check_grad, rand


@pytest.mark.parametrize("xs,ys", [((2, 3), (3, 2)), ((2,), (3, 4)), ((2, 2, 1), (3, 2))])
def test_kron_matches_torch(xs, ys):
    check_grad(skiff.kron, torch.kron, rand(xs, "float64", 1), rand(ys, "float64", 2))


def test_inner_ger_vecdot_match_torch():
    check_grad(skiff.inner, torch.inner, rand((2, 3, 4), "float64", 1), rand((5, 4), "float64"))
    check_grad(skiff.inner, torch.inner, rand((4,), "float64", 1), rand((4,), "float64", 2))
    check_grad(skiff.ger, torch.outer, rand((3,), "float64", 1), rand((4,), "float64", 2))
    check_grad(lambda x, y: skiff.vecdot(x, y, axis=0),
               lambda x, y: torch.linalg.vecdot(x, y, dim=0),
               rand((3, 4), "float64", 1), rand((3, 1), "float64", 2))
    with pytest.raises(skiff.Error, match="inner"):
        skiff.inner(skiff.ones([2, 3]), skiff.ones([2]))


@pytest.mark.parametrize("axes", [2, 0, 1, [[0, 1], [1, 0]], [[2], [0]], [1]])
def test_tensordot_matches_paddle_and_torch(axes):
    a, b = rand((3, 3, 3), "float64", 1), rand((3, 3, 2), "float64", 2)
    got = skiff.tensordot(skiff.to_tensor(a), skiff.to_tensor(b), axes)
    want = paddle.tensordot(paddle.to_tensor(a), paddle.to_tensor(b), axes)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    if isinstance(axes, int):
        check_grad(lambda x, y: skiff.tensordot(x, y, axes),
                   lambda x, y: torch.tensordot(x, y, axes), a, b)
    with pytest.raises(skiff.Error, match="tensordot"):
        skiff.tensordot(skiff.to_tensor(a), skiff.to_tensor(b), [[0], [2]])


@pytest.mark.parametrize("p", [2, 1, 3, 0, float("inf"), float("-inf")])
def test_dist_and_cdist_match_torch(p):
    a, b = rand((3, 4), "float64", 1), rand((4,), "float64", 2)
    got = skiff.dist(skiff.to_tensor(a), skiff.to_tensor(b), p)
    np.testing.assert_allclose(got.numpy(), torch.dist(torch.tensor(a), torch.tensor(b), p),
                               rtol=1e-12)
    x, y = rand((2, 3, 4), "float64", 3), rand((2, 5, 4), "float64", 4)
    if p < 0:
        pass  # torch.cdist has no negative p
    elif p == 0:
        got = skiff.cdist(skiff.to_tensor(x), skiff.to_tensor(y), p)
        np.testing.assert_array_equal(got.numpy(), torch.cdist(torch.tensor(x),
                                                               torch.tensor(y), p).numpy())
    else:
        check_grad(lambda s, t: skiff.cdist(s, t, p), lambda s, t: torch.cdist(s, t, p), x, y)
    if p == 2:
        check_grad(lambda s, t: skiff.dist(s, t, p), lambda s, t: torch.dist(s, t, p), a, b)
    with pytest.raises(skiff.Error, match="cdist"):
        skiff.cdist(skiff.ones([3, 2]), skiff.ones([3, 4]))


def test_logspace_and_triangle_indices_match_paddle():
    for args in [(0, 3, 4), (1.0, -1.0, 5, 2.0), (0, 2, 3, 10.0, "int64")]:
        got, want = skiff.logspace(*args), paddle.logspace(*args)
        assert got.dtype == str(want.dtype).replace("paddle.", "")
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    for row, col, off in [(3, 4, 0), (4, 3, 1), (4, 4, -2), (2, 5, 7)]:
        np.testing.assert_array_equal(skiff.tril_indices(row, col, off).numpy(),
                                      paddle.tril_indices(row, col, off).numpy())
        np.testing.assert_array_equal(skiff.triu_indices(row, col, off).numpy(),
                                      paddle.triu_indices(row, col, off).numpy())
    assert skiff.triu_indices(3, dtype="int32").dtype == skiff.int32
    with pytest.raises(ValueError, match="tril_indices"):
        skiff.tril_indices(-1, 2)


def test_as_tensor_and_from_numpy():
    a = np.arange(6, dtype="float32").reshape(2, 3)
    t = skiff.from_numpy(a)
    a[0, 0] = 42.0
    assert t.numpy()[0, 0] == 42.0  # shares memory
    g = skiff.as_tensor([1.0, 2.0], dtype="float64", requires_grad=True)
    assert g.dtype == skiff.float64 and g.stop_gradient is False
    with pytest.raises(TypeError, match="from_numpy"):
        skiff.from_numpy([1, 2])


def test_like_randoms_and_bernoulli():
    skiff.manual_seed(3)
    x = skiff.ones([400, 50], "float64")
    r = skiff.rand_like(x)
    assert r.dtype == skiff.float64 and r.shape == [400, 50]
    assert 0.0 <= r.numpy().min() and r.numpy().max() < 1.0
    assert abs(r.numpy().mean() - 0.5) < 0.01
    n = skiff.randn_like(x, dtype="float32")
    assert n.dtype == skiff.float32 and abs(n.numpy().std() - 1.0) < 0.02
    probs = skiff.full([20000], 0.3)
    b = skiff.bernoulli(probs).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.015
    assert skiff.bernoulli(probs, p=0.0).numpy().sum() == 0
    y = skiff.zeros([20000])
    assert y.bernoulli_(0.8) is y and abs(y.numpy().mean() - 0.8) < 0.015
    skiff.seed(5)
    first = skiff.rand_like(x).numpy()
    skiff.manual_seed(5)
    np.testing.assert_array_equal(skiff.rand_like(x).numpy(), first)


def test_multinomial_with_replacement_follows_the_weights():
    w = np.array([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 1.0, 0.0]])
    s = skiff.multinomial(skiff.to_tensor(w), 40000, replacement=True).numpy()
    assert s.shape == (2, 40000) and s.dtype == np.int64
    freq = np.bincount(s[0], minlength=4) / 40000
    np.testing.assert_allclose(freq, w[0] / w[0].sum(), atol=0.01)
    assert (s[1] == 2).all()


def test_multinomial_without_replacement_draws_distinct_weighted():
    w = skiff.to_tensor([0.0, 1.0, 2.0, 7.0])
    counts = np.zeros(4)
    for _ in range(300):
        s = skiff.multinomial(w, 2).numpy()
        assert len(set(s.tolist())) == 2 and 0 not in s
        counts[s[0]] += 1
    # the first draw is category i with probability w_i / sum(w)
    np.testing.assert_allclose(counts / 300, [0, 0.1, 0.2, 0.7], atol=0.08)
    with pytest.raises(skiff.Error, match="multinomial"):
        skiff.multinomial(w, 5)


def test_default_dtype_routes_creation():
    assert skiff.get_default_dtype() == "float32"
    try:
        skiff.set_default_dtype("float64")
        assert skiff.get_default_dtype() == "float64"
        for t in [skiff.to_tensor([1.5]), skiff.ones([2]), skiff.zeros([1]), skiff.full([1], 2.5),
                  skiff.randn([2]), skiff.rand([2]), skiff.arange(0.0, 2.0),
                  skiff.linspace(0, 1, 3), skiff.eye(2)]:
            assert t.dtype == skiff.float64
        assert skiff.to_tensor([1]).dtype == skiff.int64
        assert skiff.to_tensor(np.ones(2, "float32")).dtype == skiff.float32
    finally:
        skiff.set_default_dtype(skiff.float32)
    assert skiff.ones([1]).dtype == skiff.float32
    with pytest.raises(TypeError, match="set_default_dtype"):
        skiff.set_default_dtype("int32")


def test_iinfo_finfo_match_paddle():
    for name in ["int32", "int64"]:
        got, want = skiff.iinfo(name), paddle.iinfo(getattr(paddle, name))
        assert (got.bits, got.min, got.max, got.dtype) == (want.bits, want.min, want.max,
                                                           want.dtype)
    for name in ["float32", "float64", "bfloat16"]:
        got, want = skiff.finfo(getattr(skiff, name)), paddle.finfo(getattr(paddle, name))
        for attr in ["bits", "min", "max", "eps", "tiny", "smallest_normal", "resolution"]:
            assert getattr(got, attr) == pytest.approx(getattr(want, attr), rel=1e-12), attr
        assert got.dtype == want.dtype
    with pytest.raises(TypeError, match="iinfo"):
        skiff.iinfo("float32")
    with pytest.raises(TypeError, match="finfo"):
        skiff.finfo("int64")


def test_dtype_aliases_match_paddle():
    for name in ["float", "double", "long", "int"]:
        assert str(getattr(skiff, name)) == str(getattr(paddle, name)).replace("paddle", "skiff")
    assert skiff.half == skiff.float16  # float16 data is held as float32 in skiff
    assert skiff.ones([1], skiff.double).dtype == skiff.float64
