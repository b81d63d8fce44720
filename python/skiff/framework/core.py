"""The dispatch point: every op call of skiff reaches the core here. An eager call runs
the registered kernels through a cached ``_C.Op``; in static mode the call appends the op
to the current program; while a hook is installed (``hooked``: auto_cast, tracing) the
hook receives the call instead and runs it with ``run_unhooked``.

The eager fast paths are ``_C.Op`` objects held by the functions (``eager_op``) and
Tensor's C operators: they run the op straight while skiff is eager and unhooked, and
hand the call to ``dispatch_call`` (which calls ``apply``) otherwise, so static mode and
the hooks see every call whichever way it came in."""
import contextlib

from .. import _C
from .building import static_apply
from .mode import mode

__all__ = ["apply", "dispatch", "eager_op", "run_unhooked", "hooked", "eager_now", "dispatch_call",
           "dispatch_call_into"]

_ops = {}
# Ops are cached per attribute values; a bound keeps value-dependent attrs (shapes,
# scalars) from growing the cache without limit.
_MAX_CACHED_OPS = 8192


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def eager_op(type, attrs=None, output_counts=None):
    """The cached ``_C.Op`` for ``type`` with these attributes: calling it runs the op,
    through ``apply`` whenever static mode or a hook must see the call."""
    counts = tuple(output_counts) if output_counts else None
    if attrs:
        items = tuple([(k, _freeze(v)) if v.__class__ is list else (k, v)
                       for k, v in attrs.items()])
    else:
        items = ()
    key = (type, items, counts)
    op = _ops.get(key)
    if op is None:
        if len(_ops) >= _MAX_CACHED_OPS:
            _ops.clear()
        op = _ops[key] = _C.Op(type, attrs, output_counts)
    return op


def apply(type, *inputs, attrs=None, output_counts=None, out=None):
    """Runs (eager) or appends (static) op ``type``; ``inputs`` are one entry per input
    slot in the op's schema order (a Tensor, a list of Tensors, or None). Returns the
    single output, or a tuple over output slots. ``out`` (one entry per output slot: a
    Tensor / static Variable, a list of them, or None) names existing tensors to write,
    for in-place updates such as optimizer steps (ParamOut = Param).

    The package calls ops through their generated functions (skiff._C_ops), which call
    ``dispatch``; ``apply`` is for an op type chosen at run time."""
    return dispatch(type, inputs, attrs, output_counts, out)


def dispatch(type, inputs, attrs, output_counts, out):
    """apply's work with its arguments positional (``inputs`` a tuple): what the generated
    op functions call."""
    if mode.hooks:
        return mode.hooks[-1](type, inputs, attrs, output_counts, out)
    if mode.static:
        return static_apply(type, inputs, attrs or {}, output_counts, out)
    op = eager_op(type, attrs, output_counts)
    if out is None:
        return op(*inputs)
    return op.call_into(list(inputs), list(out))


def run_unhooked(type, inputs, attrs=None, output_counts=None, out=None):
    """What a hook calls to run an op: apply's work without the hooks."""
    if mode.static:
        return static_apply(type, inputs, attrs or {}, output_counts, out)
    op = eager_op(type, attrs, output_counts)
    if out is None:
        return op.run(*inputs)
    return op.run_into(list(inputs), list(out))


def dispatch_call(op, args):
    """A ``_C.Op`` called while static mode or a hook must see every call (the binding
    hands such calls here)."""
    return apply(op.type, *args, attrs=op.attrs, output_counts=op.output_counts)


def dispatch_call_into(op, inputs, outputs):
    """``op.call_into(inputs, outputs)`` while static mode or a hook must see every call."""
    return apply(op.type, *inputs, attrs=op.attrs, output_counts=op.output_counts,
                 out=outputs)


@contextlib.contextmanager
def eager_now():
    """Within it, op calls run now, eagerly and unhooked, even in static mode or under a
    hook: for host-side values no program or hook may see, such as a learning-rate
    schedule's value, which the executor reads before a run. Free while skiff is eager
    and unhooked; otherwise it leaves static mode and the hooks, and restores them."""
    static, hooks = mode.static, mode.hooks
    if not static and not hooks:
        yield
        return
    mode.set_hooks(())
    mode.static = False
    try:
        yield
    finally:
        mode.static = static
        mode.set_hooks(hooks)


@contextlib.contextmanager
def hooked(hook):
    """Within it, ``hook(type, inputs, attrs, output_counts, out)`` receives every op call
    (the innermost hook only; it runs ops with ``run_unhooked``)."""
    mode.set_hooks(mode.hooks + (hook,))
    try:
        yield
    finally:
        hooks = list(mode.hooks)
        del hooks[len(hooks) - 1 - hooks[::-1].index(hook)]  # the innermost entry of hook
        mode.set_hooks(hooks)
