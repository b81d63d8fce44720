"""Multinomial against torch (log_prob, entropy, moments) and sample counts by moments."""
import numpy as np
import pytest
import torch
import torch.distributions as td

import skiff
import skiff.distribution as D

PROBS = np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])


def test_values_against_torch():
    ours = D.Multinomial(5, skiff.to_tensor(PROBS))
    ref = td.Multinomial(5, torch.tensor(PROBS))
    v = np.array([[1.0, 2.0, 2.0], [5.0, 0.0, 0.0]])
    np.testing.assert_allclose(ours.log_prob(skiff.to_tensor(v)).numpy(),
                               ref.log_prob(torch.tensor(v)).numpy(), rtol=1e-10)
    np.testing.assert_allclose(ours.entropy().numpy(), ref.entropy().numpy(), rtol=1e-9)
    np.testing.assert_allclose(ours.mean.numpy(), ref.mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.variance.numpy(), ref.variance.numpy(), rtol=1e-12)
    zero = D.Multinomial(3, skiff.to_tensor(np.array([0.0, 0.4, 0.6])))
    np.testing.assert_allclose(
        zero.log_prob(skiff.to_tensor(np.array([0.0, 1.0, 2.0]))).numpy(),
        np.log(3 * 0.4 * 0.36), rtol=1e-10)


def test_sample_counts():
    skiff.seed(5)
    s = D.Multinomial(10, skiff.to_tensor(PROBS)).sample([20000]).numpy()
    assert s.shape == (20000, 2, 3)
    assert (s.sum(-1) == 10).all()
    np.testing.assert_allclose(s.mean(0), 10 * PROBS, atol=0.05)
    np.testing.assert_allclose(s.var(0), 10 * PROBS * (1 - PROBS), rtol=0.05)


def test_errors():
    with pytest.raises(ValueError, match="Multinomial: total_count"):
        D.Multinomial(0, skiff.to_tensor(PROBS))
    with pytest.raises(skiff.Error, match="Multinomial.rsample"):
        D.Multinomial(2, skiff.to_tensor(PROBS)).rsample()
