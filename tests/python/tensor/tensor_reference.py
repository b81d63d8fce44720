"""Shared checks for the tensor API tests: run a skiff function and the matching torch
function on the same values, compare results and the gradients of a weighted sum."""
import numpy as np
import torch

import skiff

TOL = {"float32": dict(rtol=1e-5, atol=1e-6), "float64": dict(rtol=1e-10, atol=1e-12)}


def rand(shape, dtype="float32", seed=0, lo=-2.0, hi=2.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def check_grad(skiff_fn, torch_fn, *arrays, seed=1, tol=None):
    """Forward values and the gradients of sum(out * w) for every float input."""
    xs = [skiff.to_tensor(a, stop_gradient=False) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = skiff_fn(*xs)
    tout = torch_fn(*ts)
    tol = tol or TOL[str(arrays[0].dtype)]
    np.testing.assert_allclose(out.numpy(), tout.detach().numpy(), **tol)
    w = rand(tuple(tout.shape), str(tout.dtype).replace("torch.", ""), seed)
    (out * skiff.to_tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for x, t in zip(xs, ts):
        assert x.grad is not None, "no gradient reached an input"
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), **tol)
    return out


def run_static(expr, value):
    """expr(x) and the gradient of sum(expr(x)^2) for x, from a static program fed `value`."""
    import skiff.static as st
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            x = st.data("x", list(value.shape), str(value.dtype))
            x.stop_gradient = False
            out = expr(x)
            loss = skiff.sum(out * out)
            grads = st.gradients([loss], [x])
            exe = st.Executor(skiff.CPUPlace())
            exe.run(startup)
            return exe.run(main, feed={"x": value}, fetch_list=[out, grads[0]])
    finally:
        skiff.disable_static()


def check_static_matches_eager(expr, value):
    """The program built by expr gives the eager value and the eager gradient."""
    x = skiff.to_tensor(value.copy(), stop_gradient=False)
    out = expr(x)
    (out * out).sum().backward()
    got, grad = run_static(expr, value)
    np.testing.assert_allclose(got, out.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(grad, x.grad.numpy(), rtol=1e-4, atol=1e-4)
