"""Static autodiff: append_backward(loss) appends the grad ops of every op between the
parameters and the loss (made by the same grad makers eager mode uses) to the loss's
program; gradients(targets, inputs) returns the gradient variables of any inputs."""
from .. import _C
from .. import _C_ops
from .grad_regions import backward_through_regions
from .program import program_guard
from .variable import Variable

__all__ = ["append_backward", "gradients"]


def _names(items, what):
    out = []
    for v in items or ():
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, Variable) or hasattr(v, "name"):
            out.append(v.name)
        else:
            raise TypeError(f"{what} holds {type(v).__name__}; expected Variables or names")
    return out


def _check_target(target, what):
    if not isinstance(target, Variable):
        raise TypeError(f"{what} must be a static Variable, got {type(target).__name__}")
    if target.block.idx != 0:
        raise _C.Error(f"{what} '{target.name}' lives in block {target.block.idx}; only "
                       f"variables of the global block can be differentiated")


def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None,
                    checkpoints=None):
    """Appends loss's backward pass to its program; returns [(parameter, gradient)] for
    the parameters (default: every trainable parameter) that loss depends on."""
    _check_target(loss, "append_backward: loss")
    program = loss.block.program
    if parameter_list is None:
        # Empty (a loaded program has no Parameter objects): every trainable persistable.
        params = [p.name for p in program.all_parameters() if p.trainable]
    else:
        params = _names(parameter_list, "parameter_list")
    no_grad = set(_names(no_grad_set, "no_grad_set"))
    block = program.global_block()
    if program._grad_regions:
        grads = backward_through_regions(program, loss.name, params, no_grad)
        return [(block.var(p), grads[p]) for p in params if p in grads]
    existed = {p for p in params if program.desc.has_var_anywhere(p + "@GRAD")}
    pairs = _C.append_backward(program.desc, loss.name, params, no_grad, False)
    # A later backward pass writes the same gradient names: a pass over names an
    # earlier one wrote returns copies, so each result keeps its own value.
    return [(block.var(p), _snapshot(program, g) if p in existed else block.var(g))
            for p, g in pairs]


def _snapshot(program, name):
    """A copy of gradient ``name`` taken right after the backward ops just appended."""
    with program_guard(program), program._block_guard(0):
        return _C_ops.assign(program.global_block().var(name))


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    """The gradients of sum(targets · target_gradients) (target_gradients default to
    ones) with respect to each of ``inputs``; None for an input the targets do not
    depend on."""
    targets, inputs = _as_list(targets), _as_list(inputs)
    grads_in = _as_list(target_gradients)
    if not targets:
        raise ValueError("gradients: no targets")
    if grads_in and len(grads_in) != len(targets):
        raise ValueError(f"gradients: {len(targets)} targets but {len(grads_in)} "
                         f"target_gradients")
    for t in targets:
        _check_target(t, "gradients: target")
    program = targets[0].block.program
    if len(targets) == 1 and not any(g is not None for g in grads_in):
        target = targets[0]
    else:
        # One scalar whose gradient is the wanted vector-Jacobian product.
        with program_guard(program), program._block_guard(0):
            parts = []
            for i, t in enumerate(targets):
                g = grads_in[i] if grads_in else None
                weighted = t if g is None else _C_ops.elementwise_mul(t, g)
                parts.append(_C_ops.reduce_sum(weighted, reduce_all=True))
            target = parts[0] if len(parts) == 1 else _C_ops.sum(parts)
    names = _names(inputs, "inputs")
    no_grad = set(_names(no_grad_set, "no_grad_set"))
    if program._grad_regions:
        grads = backward_through_regions(program, target.name, names, no_grad)
        return [grads.get(n) for n in names]
    pairs = dict(_C.append_backward(program.desc, target.name, names, no_grad, False))
    return [_snapshot(program, pairs[n]) if n in pairs else None for n in names]
