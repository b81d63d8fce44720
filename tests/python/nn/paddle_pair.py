"""Running one computation under skiff and under real Paddle on the same values, for the
skiff.nn tests that take Paddle (not PyTorch) as the reference."""
import numpy as np

import skiff


def run_both(paddle, fn_name, arrays, grads=(), module="nn.functional", seed=0, **kwargs):
    """Calls skiff's and Paddle's ``module.fn_name`` on tensors of ``arrays`` (the
    indices in ``grads`` tracked), backpropagates sum(out * w) for one random w, and
    returns ((skiff out, skiff grads), (paddle out, paddle grads)) as numpy."""
    results = []
    rng = np.random.default_rng(seed)
    weights = None
    for lib in (skiff, paddle):
        fn = lib
        for part in (module + "." + fn_name).split("."):
            fn = getattr(fn, part)
        ins = []
        for i, a in enumerate(arrays):
            t = lib.to_tensor(a)
            t.stop_gradient = i not in grads
            ins.append(t)
        out = fn(*ins, **kwargs)
        first = out[0] if isinstance(out, (tuple, list)) else out
        if grads:
            if weights is None:
                weights = rng.standard_normal(list(first.shape)).astype(
                    first.numpy().dtype)
            (first * lib.to_tensor(weights)).sum().backward()
        outs = [o.numpy() for o in out] if isinstance(out, (tuple, list)) else first.numpy()
        results.append((outs, [ins[i].grad.numpy() for i in grads]))
    return results[0], results[1]


def assert_same(mine, ref, rtol=1e-5, atol=1e-6):
    """Outputs and gradients of run_both agree (values, shapes and dtypes)."""
    (out_s, grad_s), (out_p, grad_p) = mine, ref
    outs_s = out_s if isinstance(out_s, list) else [out_s]
    outs_p = out_p if isinstance(out_p, list) else [out_p]
    for a, b in zip(outs_s + grad_s, outs_p + grad_p):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
