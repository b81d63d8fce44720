"""skiff.sparse functions against Paddle's: elementwise, products and shape functions."""
import numpy as np
import paddle
import pytest

import skiff

X = np.array([[0, -1, 0, 2], [0, 0, -3, 0], [4, 5, 0, 0]], "float32")
Y = np.array([[0, 0, 0, -2], [0, 2, -3, 0], [2, 3, 4, 8]], "float32")


def _both(fmt):
    conv = (lambda t: t.to_sparse_csr()) if fmt == "csr" else (lambda t: t.to_sparse_coo(2))
    return (conv(skiff.to_tensor(X)), conv(skiff.to_tensor(Y)),
            conv(paddle.to_tensor(X)), conv(paddle.to_tensor(Y)))


@pytest.mark.parametrize("fmt", ["coo", "csr"])
@pytest.mark.parametrize("op", ["add", "subtract", "multiply", "divide"])
def test_binary_matches_paddle(fmt, op):
    sx, sy, px, py = _both(fmt)
    out, ref = getattr(skiff.sparse, op)(sx, sy), getattr(paddle.sparse, op)(px, py)
    assert out.nnz() == ref.nnz()
    np.testing.assert_allclose(out.to_dense().numpy(), ref.to_dense().numpy())


@pytest.mark.parametrize("op", ["sin", "tanh", "sqrt", "abs", "neg", "expm1", "isnan"])
def test_unary_matches_paddle(op):
    sx, _, px, _ = _both("coo")
    np.testing.assert_allclose(getattr(skiff.sparse, op)(sx).to_dense().numpy(),
                               getattr(paddle.sparse, op)(px).to_dense().numpy(), rtol=1e-6)


def test_matmul_values_and_grads():
    """Paddle's CPU build has no sparse matmul kernel: numpy is the reference."""
    w = np.random.RandomState(0).randn(4, 3).astype("float32")
    x = skiff.to_tensor(X).to_sparse_coo(2)
    x.stop_gradient = False
    y = skiff.to_tensor(w, stop_gradient=False)
    out = skiff.sparse.matmul(x, y)
    out.sum().backward()
    np.testing.assert_allclose(out.numpy(), X @ w, rtol=1e-5)
    np.testing.assert_allclose(x.grad.to_dense().numpy(), (X != 0) * w.sum(1)[None, :],
                               rtol=1e-5)
    np.testing.assert_allclose(y.grad.numpy(), X.T @ np.ones([3, 3], "float32"), rtol=1e-5)


def test_sparse_sparse_matmul_and_masked_matmul():
    sx = skiff.to_tensor(X).to_sparse_csr()
    st = skiff.to_tensor(Y.T).to_sparse_csr()
    out = skiff.sparse.matmul(sx, st)
    assert out.is_sparse_csr()
    np.testing.assert_allclose(out.to_dense().numpy(), X @ Y.T)
    a = np.arange(12, dtype="float32").reshape(3, 4)
    b = np.arange(16, dtype="float32").reshape(4, 4)
    masked = skiff.sparse.masked_matmul(skiff.to_tensor(a), skiff.to_tensor(b), sx)
    np.testing.assert_allclose(masked.to_dense().numpy(), (a @ b) * (X != 0))


def test_shape_functions_match_paddle():
    d = np.arange(24, dtype="float32").reshape(2, 3, 4) % 5
    s, p = skiff.to_tensor(d).to_sparse_coo(3), paddle.to_tensor(d).to_sparse_coo(3)
    pairs = [(skiff.sparse.transpose(s, [2, 0, 1]), paddle.sparse.transpose(p, [2, 0, 1])),
             (skiff.sparse.reshape(s, [4, -1]), paddle.sparse.reshape(p, [4, -1])),
             (skiff.sparse.slice(s, [1, 2], [1, 0], [3, -1]),
              paddle.sparse.slice(p, [1, 2], [1, 0], [3, -1])),
             (skiff.sparse.sum(s, axis=1), paddle.sparse.sum(p, axis=1)),
             (skiff.sparse.sum(s), paddle.sparse.sum(p))]
    for a, b in pairs:
        assert a.shape == list(b.shape)
        np.testing.assert_allclose(a.to_dense().numpy(), b.to_dense().numpy())


def test_mismatched_shapes_are_named():
    sx, _, _, _ = _both("coo")
    with pytest.raises(ValueError, match="same shape"):
        skiff.sparse.add(sx, skiff.ones([2, 2]).to_sparse_coo(2))
