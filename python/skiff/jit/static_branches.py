"""A converted `if` whose condition is a Tensor: both branches are traced into the
blocks of one skiff.static.nn.cond, and each live variable is merged leaf by leaf.
Python numbers that differ between the branches (or face a Tensor) become tensors;
the branches are traced again when the first one has to change what it returns."""
from .. import _C
from .ast_lowering import RETURN_VALUE
from .static_control import (_is_number, _is_undefined, _known_shape, _number_dtype,
                             as_program_var, constant, describe, flatten, is_eager_tensor,
                             is_static_var, unflatten)

Error = _C.Error


class _Replan(Exception):
    """The second branch needs the first to return tensors it did not."""

    def __init__(self, plan):
        super().__init__()
        self.plan = plan


def _tensor(value):
    return is_static_var(value) or is_eager_tensor(value)


def _leaf_plan(a, b, name, loc):
    """How one leaf of both branches merges: None (the same Python value), or
    (dtype, shape) of the tensor it becomes. Tensors made eagerly in a branch (to_tensor,
    zeros, full, ...) merge as the program variables they become."""
    if is_eager_tensor(a) and a is b:
        return None
    from .static_loops import Unset
    for unset, other in ((a, b), (b, a)):
        if not _is_undefined(unset) or not (_tensor(other) or _is_number(other)):
            continue
        if isinstance(unset, Unset):
            # A variable an enclosing loop assigns first here: that loop learns what it is.
            raise unset.learned(as_program_var(other) if is_eager_tensor(other) else other)
        if name == RETURN_VALUE:
            # The value of a `return` in one branch: read only where the return flag set
            # beside it holds, so the other branch holds zeros of its dtype and shape.
            if _is_number(other):
                return (_number_dtype(other), [])
            shape = list(other.shape)
            if any(d < 0 for d in shape):
                raise Error(f"{loc}: a `return` inside a loop, in a branch of this `if` on a "
                            f"Tensor, returns a Tensor of shape {shape}, known only when the "
                            f"program runs; assign the result to a variable defined before "
                            f"the loop and `break` instead")
            return (other._dtype_name, shape)
    if _tensor(a) and _tensor(b):
        if is_static_var(a) and is_static_var(b) and a.type != b.type:
            raise Error(f"{loc}: variable '{name}' is {describe(a)} in the true branch and "
                        f"{describe(b)} in the false branch of this `if` on a Tensor")
        if a._dtype_name != b._dtype_name:
            raise Error(f"{loc}: variable '{name}' is {a._dtype_name} in the true branch and "
                        f"{b._dtype_name} in the false branch of this `if` on a Tensor; "
                        f"cast one so both branches agree")
        return (a._dtype_name, None)
    if _tensor(a) or _tensor(b):
        var, other = (a, b) if _tensor(a) else (b, a)
        if _is_number(other) and getattr(var, "type", None) != "tensor_array":
            return (var._dtype_name, _known_shape(var))
        side = "true" if var is a else "false"
        raise Error(f"{loc}: variable '{name}' is {describe(var)} in the {side} branch and "
                    f"{describe(other)} in the other branch of this `if` on a Tensor, so its "
                    f"value after the `if` would depend on the Tensor; give it a Tensor value "
                    f"in both branches (or before the `if`)")
    if _is_undefined(a) and _is_undefined(b):
        return None
    if _is_number(a) and _is_number(b) and not _is_undefined(a) and not _is_undefined(b):
        if type(a) is type(b) and a == b:
            return None
        return (_number_dtype(a, b), [])
    if a is b or (type(a) is type(b) and _safe_equal(a, b)):
        return None
    raise Error(f"{loc}: variable '{name}' is {describe(a)} in the true branch and "
                f"{describe(b)} in the false branch of this `if` on a Tensor; to_static can "
                f"merge only Tensors and numbers, so make it a Tensor in both branches (e.g. "
                f"skiff.to_tensor) or compute it before the `if`")


def _safe_equal(a, b):
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects whose == is not a plain bool
        return False


def _as_tensor(value, plan_entry):
    dtype, shape = plan_entry
    if is_static_var(value):
        return value
    if is_eager_tensor(value):
        return as_program_var(value)
    return constant(0 if _is_undefined(value) else value, dtype, shape or [])


def ifelse(pred, true_fn, false_fn, values, names, live, loc):
    """Builds the cond op; returns the values of ``names`` after the `if`."""
    from ..static import nn as static_nn
    live_idx = [k for k, n in enumerate(names) if n in live]
    from .static_loops import _mark, _rollback
    plan = None  # per live leaf: None or (dtype, shape); fixed after the first trace
    mark = _mark()
    for _ in range(2):
        seen = {}

        def run(fn, side, plan=plan):
            outs = fn(*[list(v) if isinstance(v, list) else v for v in values])
            specs, leaves = [], []
            for k in live_idx:
                specs.append(flatten(outs[k], leaves))
            seen[side] = (outs, specs, leaves)
            if side == "true":
                use = plan if plan is not None else [
                    (v._dtype_name, None) if is_static_var(v) else None for v in leaves]
                seen["used"] = use
            else:
                use = _merge_plan(seen, names, live_idx, loc)
                if use != seen["used"]:
                    raise _Replan(use)
            return [_as_tensor(v, p) for v, p in zip(leaves, use) if p is not None] or None

        try:
            merged = static_nn.cond(pred, lambda: run(true_fn, "true"),
                                    lambda: run(false_fn, "false"))
            break
        except _Replan as replan:
            _rollback(mark)
            plan = replan.plan
    else:
        raise Error(f"{loc}: to_static could not merge the branches of this `if` on a Tensor")

    merged = list(merged) if isinstance(merged, (list, tuple)) else \
        ([] if merged is None else [merged])
    outs_true, specs, leaves_true = seen["true"]
    merged_it = iter(merged)
    result_leaves = [next(merged_it) if p is not None else v
                     for v, p in zip(leaves_true, seen["used"])]
    result = [_undefined(n) for n in names]
    pos = 0
    for spec, k in zip(specs, live_idx):
        count = _leaf_count(spec)
        result[k] = unflatten(spec, result_leaves[pos:pos + count])
        pos += count
    return tuple(result)


def _merge_plan(seen, names, live_idx, loc):
    _, specs_t, leaves_t = seen["true"]
    _, specs_f, leaves_f = seen["false"]
    plan, pos = [], 0
    for spec_t, spec_f, k in zip(specs_t, specs_f, live_idx):
        count = _leaf_count(spec_t)
        if spec_t != spec_f:
            a = seen["true"][0][k]
            b = seen["false"][0][k]
            raise Error(f"{loc}: variable '{names[k]}' is {describe(a)} in the true branch "
                        f"and {describe(b)} in the false branch of this `if` on a Tensor")
        for a, b in zip(leaves_t[pos:pos + count], leaves_f[pos:pos + count]):
            plan.append(_leaf_plan(a, b, names[k], loc))
        pos += count
    return plan


def _leaf_count(spec):
    if spec is None:
        return 1
    children = spec[2] if spec[0] is dict else spec[1]
    return sum(_leaf_count(s) for s in children)


def _undefined(name):
    from .static_control import UndefinedVar
    return UndefinedVar(name)
