"""Op dispatch shared by every function of skiff: an eager call runs the registered
kernels through a cached ``_C.Op``; in static mode the same call appends the op to
the current program."""
from .. import _C
from .building import static_apply
from .mode import mode


_ops = {}
# Set by skiff.amp.auto_cast while it is active: amp_hook(type, inputs, attrs,
# output_counts, out) runs the op in place of apply (casting the inputs it must).
amp_hook = None
# Ops are cached per attribute values; a bound keeps value-dependent attrs (shapes,
# scalars) from growing the cache without limit.
_MAX_CACHED_OPS = 8192


def _freeze(value):
    if isinstance(value, (list, tuple)):
        return tuple(_freeze(v) for v in value)
    return value


def eager_op(type, attrs=None, output_counts=None):
    """The cached ``_C.Op`` for ``type`` with these attributes."""
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
    for in-place updates such as optimizer steps (ParamOut = Param)."""
    if amp_hook is not None:
        return amp_hook(type, inputs, attrs, output_counts, out)
    if mode.static:
        return static_apply(type, inputs, attrs or {}, output_counts, out)
    op = eager_op(type, attrs, output_counts)
    if out is None:
        return op(*inputs)
    return op.call_into(list(inputs), list(out))
