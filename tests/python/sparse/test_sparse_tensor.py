"""skiff.sparse tensors against Paddle: creation, conversions, accessors and gradients."""
import numpy as np
import paddle
import pytest

import skiff

DENSE = np.array([[0, 1, 0, 2], [0, 0, 3, 4], [5, 0, 0, 0]], "float32")


def test_coo_from_indices_matches_paddle():
    idx, vals = [[0, 1, 2], [1, 2, 0]], [1.0, 2.0, 3.0]
    s, p = skiff.sparse.sparse_coo_tensor(idx, vals, [3, 3]), \
        paddle.sparse.sparse_coo_tensor(idx, vals, [3, 3])
    assert isinstance(s, skiff.Tensor) and s.is_sparse_coo() and not s.is_sparse_csr()
    np.testing.assert_array_equal(s.to_dense().numpy(), p.to_dense().numpy())
    assert s.nnz() == p.nnz() and s.sparse_dim() == 2 and s.dense_dim() == 0
    assert str(s.dtype).endswith("float32")


def test_csr_and_conversions_match_paddle():
    x, px = skiff.to_tensor(DENSE), paddle.to_tensor(DENSE)
    c, pc = x.to_sparse_csr(), px.to_sparse_csr()
    np.testing.assert_array_equal(c.crows().numpy(), pc.crows().numpy())
    np.testing.assert_array_equal(c.cols().numpy(), pc.cols().numpy())
    np.testing.assert_array_equal(c.values().numpy(), pc.values().numpy())
    coo, pcoo = c.to_sparse_coo(2), pc.to_sparse_coo(2)
    np.testing.assert_array_equal(coo.indices().numpy(), pcoo.indices().numpy())
    one, pone = x.to_sparse_coo(1), px.to_sparse_coo(1)
    np.testing.assert_array_equal(one.values().numpy(), pone.values().numpy())
    assert one.dense_dim() == 1


def test_coalesce_sums_repeats():
    s = skiff.sparse.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0])
    p = paddle.sparse.sparse_coo_tensor([[0, 0, 1], [1, 1, 2]], [1.0, 2.0, 3.0]).coalesce()
    assert not s.is_coalesced()
    c = s.coalesce()
    assert c.is_coalesced()
    np.testing.assert_array_equal(c.indices().numpy(), p.indices().numpy())
    np.testing.assert_array_equal(c.values().numpy(), p.values().numpy())


def test_gradient_flows_to_dense_and_leaf_grad_is_sparse():
    x = skiff.to_tensor(DENSE, stop_gradient=False)
    px = paddle.to_tensor(DENSE, stop_gradient=False)
    skiff.sparse.sin(x.to_sparse_coo(2)).backward()
    paddle.sparse.sin(px.to_sparse_coo(2)).backward()
    np.testing.assert_allclose(x.grad.numpy(), px.grad.numpy(), rtol=1e-6)
    leaf = skiff.to_tensor(DENSE).to_sparse_csr()
    leaf.stop_gradient = False
    skiff.sparse.square(leaf).backward()
    assert leaf.grad.is_sparse_csr()
    np.testing.assert_allclose(leaf.grad.values().numpy(), 2 * leaf.values().numpy())


def test_mistakes_are_named():
    with pytest.raises(ValueError, match="values must have nnz"):
        skiff.sparse.sparse_coo_tensor([[0, 1]], [1.0])
    with pytest.raises(ValueError, match="indices of dim 0"):
        skiff.sparse.sparse_coo_tensor([[0, 5]], [1.0, 2.0], [3])
    with pytest.raises(TypeError, match="crows"):
        skiff.to_tensor(DENSE).to_sparse_coo(2).crows()
    with pytest.raises(TypeError, match="sparse COO"):
        skiff.to_tensor(DENSE).indices()
