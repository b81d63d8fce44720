"""LKJCholesky against Paddle's (and torch's): log_prob over batches and dims with its
gradient in the concentration, both sampling methods' draws (valid Cholesky factors of
correlation matrices whose off-diagonal correlations follow the LKJ marginal
Beta(eta - 1 + d/2) on (-1, 1)), shapes and errors."""
import numpy as np
import paddle
import pytest
import torch

import skiff
from skiff.distribution import LKJCholesky


def torch_factors(dim, eta, n, seed=0):
    torch.manual_seed(seed)
    return torch.distributions.LKJCholesky(dim, torch.tensor(eta, dtype=torch.float64),
                                           validate_args=False).sample((n,)).numpy()


@pytest.mark.parametrize("dim,eta", [(2, 2.0), (3, [1.0, 2.5]), (5, 0.7)])
def test_log_prob_matches_paddle(dim, eta):
    value = torch_factors(dim, eta, 4)
    ours = LKJCholesky(dim, skiff.to_tensor(np.asarray(eta, "float64")))
    theirs = paddle.distribution.LKJCholesky(dim,
                                             paddle.to_tensor(np.asarray(eta, "float64")))
    got, want = ours.log_prob(skiff.to_tensor(value)), theirs.log_prob(paddle.to_tensor(value))
    assert got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
    eye = ours.log_prob(skiff.eye(dim, dtype="float64"))
    np.testing.assert_allclose(eye.numpy(), theirs.log_prob(paddle.eye(dim, dtype="float64")).numpy(),
                               rtol=1e-10)


def test_log_prob_gradient_in_concentration_matches_paddle():
    value = torch_factors(3, 1.5, 2)[:, None]  # [2, 1, 3, 3] against batch [1]
    c, pc = skiff.to_tensor([1.5], "float64", stop_gradient=False), paddle.to_tensor(
        [1.5], "float64", stop_gradient=False)
    got = LKJCholesky(3, c).log_prob(skiff.to_tensor(value))
    want = paddle.distribution.LKJCholesky(3, pc).log_prob(paddle.to_tensor(value))
    assert got.shape == list(want.shape) == [2, 1]
    got.sum().backward()
    want.sum().backward()
    np.testing.assert_allclose(c.grad.numpy(), pc.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("method", ["onion", "cvine"])
@pytest.mark.parametrize("dim,eta", [(3, 1.5), (4, 0.7)])
def test_draws_are_correlation_factors_with_the_lkj_marginal(method, dim, eta):
    skiff.seed(11)
    draws = LKJCholesky(dim, eta, method).sample([6000]).numpy().astype(np.float64)
    assert draws.shape == (6000, dim, dim)
    np.testing.assert_array_equal(np.triu(draws, 1), 0.0)
    assert np.all(np.diagonal(draws, axis1=1, axis2=2) > 0)
    corr = draws @ np.swapaxes(draws, 1, 2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=1, axis2=2), 1.0, atol=1e-5)
    beta = eta - 1.0 + dim / 2.0  # every correlation: 2 Beta(beta, beta) - 1
    off = corr[:, np.tril_indices(dim, -1)[0], np.tril_indices(dim, -1)[1]]
    np.testing.assert_allclose(off.mean(0), 0.0, atol=0.03)
    np.testing.assert_allclose(off.var(0), 1.0 / (2.0 * beta + 1.0), rtol=0.08)


def test_shapes_dtypes_and_batches():
    lkj = LKJCholesky(3)
    assert lkj.batch_shape == () and lkj.event_shape == (3, 3) and lkj.dim == 3
    assert lkj.sample_method == "onion" and lkj.concentration.shape == []
    assert lkj.sample().shape == [3, 3] and lkj.sample().stop_gradient
    assert lkj.sample([2, 4]).shape == [2, 4, 3, 3]
    batch = LKJCholesky(3, skiff.to_tensor([1.0, 2.0], "float64"), "cvine")
    assert batch.batch_shape == (2,)
    draws = batch.sample([5])
    assert draws.shape == [5, 2, 3, 3] and draws.dtype == skiff.float64
    assert batch.log_prob(skiff.eye(3, dtype="float64")).shape == [2]
    assert LKJCholesky(3, 2).concentration.dtype == skiff.float32
    with pytest.raises(NotImplementedError):
        lkj.rsample()
    with pytest.raises(NotImplementedError):
        lkj.entropy()


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="dim must be at least 2, got 1"):
        LKJCholesky(1)
    with pytest.raises(TypeError, match="dim must be an int, got 3.5"):
        LKJCholesky(3.5)
    with pytest.raises(ValueError, match="concentration must be positive"):
        LKJCholesky(3, -1.0)
    with pytest.raises(ValueError, match="concentration must be positive"):
        LKJCholesky(3, skiff.to_tensor([1.0, 0.0]))
    with pytest.raises(ValueError, match="sample_method must be 'onion' or 'cvine', got 'foo'"):
        LKJCholesky(3, 1.0, "foo")
    with pytest.raises(ValueError, match=r"value must end in \[3, 3\], got \[4, 4\]"):
        LKJCholesky(3).log_prob(skiff.eye(4))
    with pytest.raises(TypeError, match="shape must be a list or tuple"):
        LKJCholesky(3).sample(2)
