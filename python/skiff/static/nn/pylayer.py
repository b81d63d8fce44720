"""static_pylayer: a region of a static program whose forward is ``forward_fn``'s ops and
whose gradient is ``backward_fn``'s (built when the backward pass is appended)."""
from ... import _C
from ... import _C_ops
from ...framework import nest
from ...framework.grad_regions import GradRegion
from ...framework.mode import mode
from ...framework.program import default_main_program
from ...framework.source import user_source
from ...framework.variable import Variable

__all__ = ["static_pylayer"]


def static_pylayer(forward_fn, inputs, backward_fn=None, name=None):
    """``forward_fn(*inputs)`` as ops of the program; gradients reaching its outputs go to
    the inputs as ``backward_fn(*output_grads)`` (one gradient per input). Without
    ``backward_fn`` no gradient passes, and every input must have stop_gradient True."""
    if not mode.static:
        raise _C.Error("static_pylayer builds static programs; in dynamic mode use "
                       "skiff.autograd.PyLayer")
    if not callable(forward_fn) or (backward_fn is not None and not callable(backward_fn)):
        raise TypeError("static_pylayer: forward_fn and backward_fn must be callable")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"static_pylayer: inputs must be a list of Variables, got "
                        f"{type(inputs).__name__}")
    for k, x in enumerate(inputs):
        if not isinstance(x, Variable):
            raise TypeError(f"static_pylayer: inputs[{k}] is {type(x).__name__}, not a "
                            f"Variable")
        if backward_fn is None and not x.stop_gradient:
            raise ValueError(f"static_pylayer: without backward_fn no gradient passes, so "
                             f"every input must have stop_gradient True; '{x.name}' has "
                             f"False")
    program = default_main_program()
    if program.current_block_idx() != 0:
        raise _C.Error("static_pylayer: it must be called in the program's global block, "
                       "not inside a cond or while_loop body")
    source = user_source()
    copies = [_C_ops.assign(x) for x in inputs]  # forward_fn's ops start from these
    leaves = []
    spec = nest.flatten(forward_fn(*copies), leaves, none_is_leaf=False)
    for k, t in enumerate(leaves):
        if not isinstance(t, Variable):
            raise TypeError(f"static_pylayer ({source}): forward_fn returns "
                            f"{type(t).__name__} as its output {k}; it must return Variables")
    outputs = [_C_ops.assign(t) for t in leaves]
    differentiable = backward_fn is not None and not all(x.stop_gradient for x in inputs)
    for y in outputs:
        y.stop_gradient = not differentiable
    program._grad_regions.append(GradRegion(
        [x.name for x in inputs], [y.name for y in outputs],
        [v.name for v in copies] + [t.name for t in leaves], backward_fn, source))
    return nest.pack(spec, outputs)
