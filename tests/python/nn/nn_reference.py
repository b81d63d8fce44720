"""Shared pieces of the skiff.nn tests: the same computation in skiff and PyTorch on the
same values, with forward outputs and gradients compared."""
import numpy as np
import torch

import skiff

RTOL = {"float32": 1e-4, "float64": 1e-9}
ATOL = {"float32": 1e-5, "float64": 1e-11}


def rand(*shape, dtype="float64", seed=0, low=-1.0, high=1.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(low, high, size=shape).astype(dtype)


def tensor(arr, grad=False):
    """A skiff tensor copy of ``arr`` (stop_gradient False when ``grad``)."""
    t = skiff.to_tensor(np.array(arr))
    t.stop_gradient = not grad
    return t


def torch_tensor(arr, grad=False):
    t = torch.tensor(np.array(arr))
    t.requires_grad_(grad)
    return t


def close(actual, expected, dtype="float64", rtol=None, atol=None, what=""):
    actual = actual.numpy() if hasattr(actual, "numpy") and not isinstance(
        actual, np.ndarray) else actual
    if isinstance(expected, torch.Tensor):
        expected = expected.detach().numpy()
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected),
                               rtol=rtol or RTOL[dtype], atol=atol or ATOL[dtype],
                               err_msg=what)


def backward_with(out, weights):
    """Backpropagates sum(out * weights) (weights: a numpy array of out's shape)."""
    if isinstance(out, torch.Tensor):
        (out * torch.tensor(weights)).sum().backward()
    else:
        skiff.sum(out * tensor(weights)).backward()


def compare(sk_out, th_out, dtype="float64", seed=99, rtol=None, atol=None):
    """Checks the forward values, then backpropagates the same random weighting through
    both (leaving the gradients in the leaves for the caller to compare)."""
    close(sk_out, th_out, dtype, rtol, atol, "forward")
    w = rand(*th_out.shape, dtype=dtype, seed=seed)
    backward_with(sk_out, w)
    backward_with(th_out, w)


def set_param(p, value):
    """Copies a numpy array or torch tensor into a skiff parameter."""
    if isinstance(value, torch.Tensor):
        value = value.detach().numpy()
    p.set_value(np.ascontiguousarray(value))


def weighted_grad(fn, x):
    """fn(x) in skiff and the gradient for x of sum(fn(x) * w), w rising evenly from 0.5 to
    1.5 over fn(x)'s elements; both as numpy arrays."""
    t = skiff.to_tensor(x)
    t.stop_gradient = False
    out = fn(t)
    skiff.sum(out * skiff.to_tensor(np.linspace(0.5, 1.5, out.size).reshape(out.shape)
                                    .astype(x.dtype))).backward()
    return out.numpy(), t.grad.numpy()


def torch_weighted_grad(fn, x):
    """weighted_grad for a torch function."""
    t = torch.tensor(x, requires_grad=True)
    out = fn(t)
    w = torch.tensor(np.linspace(0.5, 1.5, out.numel()).reshape(out.shape).astype(x.dtype))
    (out * w).sum().backward()
    return out.detach().numpy(), t.grad.numpy()
