"""skiff.autograd.jacobian / hessian against Paddle's: shapes, values of whole matrices and
of indexed parts, batch_axis, tuples of ys and xs, the lazy row evaluation, the Tensor
attributes and operators a Jacobian lends, and the errors."""
import numpy as np
import paddle
import pytest

import skiff

V = np.array([0.5, -1.2, 2.0, 0.3])
B = np.random.default_rng(0).standard_normal((3, 4))
W = np.random.default_rng(1).standard_normal((4, 2))


def leaves(a):
    s, p = skiff.to_tensor(np.asarray(a)), paddle.to_tensor(np.asarray(a))
    s.stop_gradient = p.stop_gradient = False
    return s, p


def f(m, x):
    return m.tanh(x) * x.sum() + x[0] * x


def close(a, b):
    np.testing.assert_allclose(np.asarray(a.numpy()), np.asarray(b.numpy()), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("index", [slice(None), 0, -1, slice(1, 3), (0, 1), (slice(None), 2),
                                   (slice(2, None), slice(0, 2)), (3,)])
def test_jacobian_indexing_matches_paddle(index):
    sx, px = leaves(V)
    ours, theirs = skiff.autograd.jacobian(f(skiff, sx), sx), \
        paddle.autograd.jacobian(f(paddle, px), px)
    assert ours.shape == list(theirs.shape) == [4, 4]
    got, want = ours[index], theirs[index]
    assert got.shape == list(want.shape)
    close(got, want)


def test_jacobian_evaluates_only_the_rows_asked():
    sx, _ = leaves(V)
    J = skiff.autograd.jacobian(f(skiff, sx), sx)
    assert J._rows == {}
    J[2]
    assert sorted(J._rows) == [2]
    J[1:3, 0]
    assert sorted(J._rows) == [1, 2]


@pytest.mark.parametrize("reduce", [False, True])
def test_batched_jacobian_matches_paddle(reduce):
    sx, px = leaves(B)
    sw, pw = skiff.to_tensor(W), paddle.to_tensor(W)
    sy, py = skiff.tanh(skiff.matmul(sx, sw)), paddle.tanh(paddle.matmul(px, pw))
    if reduce:
        sy, py = sy.sum(-1), py.sum(-1)
    ours = skiff.autograd.jacobian(sy, sx, batch_axis=0)
    theirs = paddle.autograd.jacobian(py, px, batch_axis=0)
    assert ours.shape == list(theirs.shape)
    if reduce:  # Paddle's J[:] is [B, 1, N] here, against its own J.shape [B, N]
        close(ours[:], theirs[:].reshape(ours.shape))
        close(ours[1], theirs[:][1].reshape([4]))  # Paddle cannot index it by one int
    else:
        close(ours[:], theirs[:])
        close(ours[1], theirs[1])
        close(ours[:, 1], theirs[:, 1])
        close(ours[0, 1, 2:], theirs[0, 1, 2:])


def test_jacobian_of_tuples_and_zero_dim_tensors():
    (s1, p1), (s2, p2) = leaves(V), leaves(V[::-1].copy())
    ours = skiff.autograd.jacobian((s1 * s2, (s1 * s1).sum()), (s1, s2))
    theirs = paddle.autograd.jacobian((p1 * p2, (p1 * p1).sum()), (p1, p2))
    assert len(ours) == 2 and all(len(row) == 2 for row in ours)
    for ro, rt in zip(ours, theirs):
        for o, t in zip(ro, rt):
            assert o.shape == list(t.shape)
            close(o[:], t[:])
    single = skiff.autograd.jacobian(s1 * 2, [s1, s2])
    assert isinstance(single, tuple) and len(single) == 2
    np.testing.assert_array_equal(single[1][:].numpy(), np.zeros((4, 4)))  # unrelated xs
    s0, p0 = leaves(np.array(1.5))
    ours0 = skiff.autograd.jacobian(s1 * s0, s0)  # 0-d xs: shape [M]
    theirs0 = paddle.autograd.jacobian(p1 * p0, p0)
    assert ours0.shape == list(theirs0.shape) == [4]
    close(ours0[:], theirs0[:])
    close(ours0[1], theirs0[1])


def test_jacobian_lends_tensor_attributes_and_operators():
    sx, px = leaves(V)
    ours, theirs = skiff.autograd.jacobian(sx * sx, sx), paddle.autograd.jacobian(px * px, px)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy())
    assert ours.dtype == skiff.float64 and ours.ndim == 2
    close(ours + 1, theirs + 1)
    close(ours * ours, theirs * theirs)
    close(ours @ skiff.to_tensor(V), theirs @ paddle.to_tensor(V))
    close(ours > 0, theirs > 0)
    assert hash(ours) == hash(ours)


def test_jacobian_errors():
    sx, _ = leaves(V)
    J = skiff.autograd.jacobian(sx * sx, sx)
    with pytest.raises(IndexError, match="Ellipsis"):
        J[..., 0]
    with pytest.raises(TypeError, match="ints or slices, got list"):
        J[[0, 1]]
    with pytest.raises(IndexError, match="3 indices for a Jacobian of 2 dims"):
        J[0, 1, 2]
    with pytest.raises(IndexError, match="index 4 is out of range for 4 rows"):
        J[4]
    with pytest.raises(ValueError, match="batch_axis should be None or 0, but got 1"):
        skiff.autograd.jacobian(sx, sx, batch_axis=1)
    with pytest.raises(ValueError, match=r"xs.ndim should be 0 or 1 when is_batched=False"):
        skiff.autograd.jacobian(sx, skiff.ones([2, 2]))
    with pytest.raises(TypeError, match="xs must be a Tensor or a tuple of Tensors, got int"):
        skiff.autograd.jacobian(sx, 3)


def test_hessian_shapes_and_zero_blocks_match_paddle():
    (s1, p1), (s2, p2) = leaves(V), leaves(V[:3].copy())
    # ys does not depend on s2: its blocks are zeros, evaluated without a second derivative
    ours, theirs = skiff.autograd.hessian(s1.sum(), s2), paddle.autograd.hessian(p1.sum(), p2)
    assert isinstance(ours, skiff.autograd.Hessian) and ours.shape == list(theirs.shape)
    close(ours[:], theirs[:])
    (s3, p3) = leaves(V[:2].copy())
    ours, theirs = skiff.autograd.hessian(s1.sum(), (s2, s3)), \
        paddle.autograd.hessian(p1.sum(), (p2, p3))
    for ro, rt in zip(ours, theirs):
        for o, t in zip(ro, rt):
            assert o.shape == list(t.shape)
            close(o[:], t[:])
    sb, pb = leaves(B)
    ours = skiff.autograd.hessian(s1.sum() + skiff.zeros([3], "float64"), sb, batch_axis=0)
    theirs = paddle.autograd.hessian(p1.sum() + paddle.zeros([3], "float64"), pb, batch_axis=0)
    assert ours.shape == list(theirs.shape) == [3, 4, 4]
    close(ours[:], theirs[:])


def test_hessian_errors_match_paddle():
    sx, px = leaves(V)
    with pytest.raises(ValueError, match=r"one element when batch_axis is None, got shape \[4\]"):
        skiff.autograd.hessian(sx * sx, sx)
    with pytest.raises(ValueError):
        paddle.autograd.hessian(px * px, px)
    sb, pb = leaves(B)
    with pytest.raises(ValueError, match=r"shape \[B\] or \[B, 1\] when batch_axis is 0"):
        skiff.autograd.hessian(sb * sb, sb, batch_axis=0)
    with pytest.raises(ValueError):
        paddle.autograd.hessian(pb * pb, pb, batch_axis=0)
    with pytest.raises(TypeError, match="hessian: ys must be a Tensor, got list"):
        skiff.autograd.hessian([sx.sum()], sx)
    with pytest.raises(ValueError, match="batch_axis should be None or 0"):
        skiff.autograd.hessian(sx.sum(), sx, batch_axis=2)


def test_hessian_of_a_dependent_output_names_the_missing_second_derivative():
    sx, _ = leaves(V)
    with pytest.raises(skiff.Error, match=r"hessian|create_graph.*cannot differentiate a "
                                          r"gradient"):
        skiff.autograd.hessian((sx * sx * sx).sum(), sx)
