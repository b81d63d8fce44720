"""Runs a function of input tensors in a static program and returns its output and the
gradients of sum(output) with respect to the inputs, for comparison with eager mode."""
import numpy as np

import skiff


def run_in_program(fn, feeds, grad_inputs=()):
    """fn(**vars) built with skiff.enable_static() over float data vars named as in
    ``feeds`` (batch dim None), run once; returns [out, d sum(out) / d feed for
    grad_inputs]."""
    import skiff.static as st
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            data = {}
            for k, v in feeds.items():
                var = st.data(k, [None] + list(v.shape[1:]), v.dtype.name)
                var.stop_gradient = k not in grad_inputs
                data[k] = var
            out = fn(**data)
            grads = st.gradients([skiff.sum(out)], [data[k] for k in grad_inputs])
            exe = st.Executor()
            exe.run(startup)
            return [np.asarray(a) for a in exe.run(main, feed=feeds,
                                                    fetch_list=[out] + list(grads))]
    finally:
        skiff.disable_static()


def run_eager(fn, feeds, grad_inputs=()):
    """The same in eager mode: [out, grads of sum(out) for grad_inputs]."""
    data = {}
    for k, v in feeds.items():
        t = skiff.to_tensor(v)
        t.stop_gradient = k not in grad_inputs
        data[k] = t
    out = fn(**data)
    skiff.sum(out).backward()
    return [out.numpy()] + [data[k].grad.numpy() for k in grad_inputs]


def assert_static_matches_eager(fn, feeds, grad_inputs=(), rtol=1e-5, atol=1e-6):
    for a, b in zip(run_in_program(fn, feeds, grad_inputs), run_eager(fn, feeds, grad_inputs)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
