"""Shared pieces of the skiff.linalg tests: well-conditioned and symmetric positive definite
inputs, and one computation in skiff and torch compared in values and gradients."""
import numpy as np
import torch

import skiff

rng = np.random.default_rng(0)


def well_conditioned(*shape):
    a = rng.standard_normal(shape)
    return a + shape[-1] * np.eye(shape[-1])


def spd(*shape):
    m = rng.standard_normal(shape)
    return m @ np.swapaxes(m, -1, -2) + shape[-1] * np.eye(shape[-1])


def run_both(skiff_fn, torch_fn, *arrays):
    """Values and gradients of sum(out * w) from skiff and torch on the same inputs."""
    xs = [skiff.to_tensor(a, stop_gradient=False) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = skiff_fn(*xs), torch_fn(*ts)
    assert list(out.shape) == list(ref.shape)
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-10)
    w = rng.standard_normal(ref.shape)
    (out * skiff.to_tensor(w)).sum().backward()
    (ref * torch.tensor(w)).sum().backward()
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-9)
