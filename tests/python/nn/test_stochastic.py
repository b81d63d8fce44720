"""Randomised activations and dropouts (skiff/nn/functional/stochastic.py, nn/layer/
stochastic.py): RReLU's training slopes and eval mean, FeatureAlphaDropout dropping whole
channels while keeping the moments."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn.functional as F

from static_twin import assert_static_matches_eager

rng = np.random.default_rng(7)


def test_rrelu_training_slopes_and_eval_mean():
    x = rng.standard_normal((4, 50))
    skiff.seed(3)
    t = skiff.to_tensor(x)
    t.stop_gradient = False
    out = F.rrelu(t, 0.1, 0.3)
    y = out.numpy()
    neg = x < 0
    slopes = y[neg] / x[neg]
    assert np.all(slopes >= 0.1) and np.all(slopes < 0.3) and slopes.std() > 0.01
    np.testing.assert_array_equal(y[~neg], x[~neg])
    skiff.sum(out).backward()
    g = t.grad.numpy()
    np.testing.assert_allclose(g[neg], slopes, rtol=1e-12)
    np.testing.assert_array_equal(g[~neg], 1.0)
    layer = skiff.nn.RReLU(0.1, 0.3)
    layer.eval()
    ref = torch.nn.functional.rrelu(torch.tensor(x), 0.1, 0.3, training=False).numpy()
    np.testing.assert_allclose(layer(skiff.to_tensor(x)).numpy(), ref, rtol=1e-12)
    assert_static_matches_eager(lambda x: F.rrelu(x, training=False), {"x": x}, ["x"])
    with pytest.raises(ValueError, match="upper"):
        F.rrelu(t, 0.3, 0.1)
    with pytest.raises(TypeError, match="lower"):
        F.rrelu(t, 0, 0.3)


def test_feature_alpha_dropout_whole_channels_keep_moments():
    skiff.seed(5)
    x = rng.standard_normal((400, 8, 5))
    y = F.feature_alpha_dropout(skiff.to_tensor(x), 0.3).numpy()
    alpha_p = -1.7580993408473766
    a = ((1 - 0.3) * (1 + 0.3 * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * 0.3
    kept = np.isclose(y, a * x + b).all(axis=2)
    dropped = np.isclose(y, a * alpha_p + b).all(axis=2)
    assert np.all(kept ^ dropped)
    assert 0.2 < dropped.mean() < 0.4
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1.0) < 0.05
    layer = skiff.nn.FeatureAlphaDropout(0.3)
    layer.eval()
    np.testing.assert_array_equal(layer(skiff.to_tensor(x)).numpy(), x)
    assert np.all(F.feature_alpha_dropout(skiff.to_tensor(x), 1).numpy() == 0)
    with pytest.raises(ValueError, match="p must be"):
        F.feature_alpha_dropout(skiff.to_tensor(x), 1.5)
    with pytest.raises(ValueError, match="at least 2"):
        F.feature_alpha_dropout(skiff.to_tensor(x[0, 0]), 0.5)
