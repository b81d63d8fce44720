"""A converted `if` whose condition is a Tensor: both branches are traced into the
blocks of one skiff.static.nn.cond, and each live variable is merged leaf by leaf.
Python numbers that differ between the branches (or face a Tensor) become tensors;
the branches are traced again when the first one has to change what it returns."""
from .. import _C
from ..framework import dtype as dt
from ..tensor import control_flow
from ..tensor.creation import to_tensor
from .ast_lowering import RETURN_VALUE
from .static_loops import Unset, _mark, _rollback
from .static_control import (Filler, _is_number, _is_undefined, _known_shape, _number_dtype,
                             as_program_var, constant, describe, flatten, is_eager_tensor,
                             is_numeric_ndarray, is_static_var, subject,
                             UndefinedVar, unflatten)
import numpy as np

Error = _C.Error


class _Replan(Exception):
    """The second branch needs the first to return tensors it did not."""

    def __init__(self, plan):
        super().__init__()
        self.plan = plan


class _Refill(Exception):
    """The first branch did not assign variable ``index``, a `return` value the second
    branch assigns: trace again with ``filler``'s zeros in the first."""

    def __init__(self, index, filler):
        super().__init__()
        self.index, self.filler = index, filler


def _unassigned(outs, other, names, live_idx, loc, fills):
    """Fills in (in ``outs``, in place) what a branch left unassigned that the other
    branch assigned (``other``, its outputs, or None before it ran): a variable an
    enclosing loop first assigns here makes that loop learn it (static_loops.Unset); the
    value of a `return` inside a loop holds zeros of the other's structure, read only
    where the return flag set beside it holds. Returns the (index, filler) the first
    branch lacks, if any."""
    lacking = None
    for k in live_idx:
        mine = outs[k]
        theirs = None if other is None else other[k]
        if other is not None and isinstance(theirs, Unset) and not _is_undefined(mine):
            raise theirs.learned(mine)
        if not _is_undefined(mine):
            if names[k] == RETURN_VALUE and other is not None and _is_undefined(theirs) \
                    and not isinstance(theirs, Unset):
                lacking = (k, _return_filler(mine, loc))
            continue
        if isinstance(mine, Unset):
            if other is not None and not _is_undefined(theirs):
                raise mine.learned(theirs)
            continue
        if names[k] != RETURN_VALUE:
            continue
        if k in fills:
            outs[k] = fills[k].build()
        elif other is not None and not _is_undefined(theirs):
            fills[k] = _return_filler(theirs, loc)
            outs[k] = fills[k].build()
    return lacking


def _return_filler(value, loc):
    def refuse(reason):
        return Error(f"{loc}: a `return` inside a loop, in a branch of this `if` on a "
                     f"Tensor, cannot be converted ({reason}); assign the result to a "
                     f"variable defined before the loop and `break` instead")
    return Filler(value, refuse)


def _tensor(value):
    return is_static_var(value) or is_eager_tensor(value)


def _leaf_plan(a, b, name, loc):
    """How one leaf of both branches merges: None (the same Python value), or
    (dtype, shape) of the tensor it becomes. Tensors made eagerly in a branch (to_tensor,
    zeros, full, ...) merge as the program variables they become."""
    if is_eager_tensor(a) and a is b:
        return None
    if is_numeric_ndarray(a) or is_numeric_ndarray(b):
        plan = _ndarray_plan(a, b, name, loc)
        if plan != "other":
            return plan
    if _tensor(a) and _tensor(b):
        if is_static_var(a) and is_static_var(b) and a.type != b.type:
            raise Error(f"{loc}: {subject(name)} is {describe(a)} in the true branch and "
                        f"{describe(b)} in the false branch of this `if` on a Tensor; give it "
                        f"the same kind in both branches")
        if a._dtype_name != b._dtype_name:
            raise Error(f"{loc}: {subject(name)} is {a._dtype_name} in the true branch and "
                        f"{b._dtype_name} in the false branch of this `if` on a Tensor; "
                        f"cast one so both branches agree")
        return (a._dtype_name, None)
    if _tensor(a) or _tensor(b):
        var, other = (a, b) if _tensor(a) else (b, a)
        if _is_number(other) and getattr(var, "type", None) != "tensor_array":
            return (var._dtype_name, _known_shape(var))
        side = "true" if var is a else "false"
        raise Error(f"{loc}: {subject(name)} is {describe(var)} in the {side} branch and "
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
    raise Error(f"{loc}: {subject(name)} is {describe(a)} in the true branch and "
                f"{describe(b)} in the false branch of this `if` on a Tensor; to_static can "
                f"merge only Tensors and numbers, so make it a Tensor in both branches (e.g. "
                f"skiff.to_tensor) or compute it before the `if`")


def _ndarray_plan(a, b, name, loc):
    """How numeric ndarrays merge: None when both branches hold equal arrays, else the
    (dtype, shape) of the program variable both become (with a Tensor of that dtype, or
    another array); "other" for pairs it does not cover."""
    if is_numeric_ndarray(a) and is_numeric_ndarray(b) and a.dtype == b.dtype and \
            np.array_equal(a, b):
        return None
    arrays = [v for v in (a, b) if is_numeric_ndarray(v)]
    others = [v for v in (a, b) if not is_numeric_ndarray(v)]
    if others and not _tensor(others[0]):
        return "other"
    dtypes = {dt.dtype_name(v.dtype) for v in arrays} | {v._dtype_name for v in others}
    if len(dtypes) != 1:
        raise Error(f"{loc}: {subject(name)} is {describe(a)} in the true branch and "
                    f"{describe(b)} in the false branch of this `if` on a Tensor; give both "
                    f"the same dtype (they become one Tensor)")
    return (dtypes.pop(), None)


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
    if is_numeric_ndarray(value):  # an ndarray merged with another value: an assign of it
        return as_program_var(to_tensor(value, dtype))
    return constant(value, dtype, shape or [])


def ifelse(pred, true_fn, false_fn, values, names, live, loc):
    """Builds the cond op; returns the values of ``names`` after the `if`."""
    live_idx = [k for k, n in enumerate(names) if n in live]
    plan = None  # per live leaf: None or (dtype, shape); fixed after the first trace
    fills = {}   # index -> Filler of a `return` value the first branch does not assign
    mark = _mark()
    for _ in range(4):
        seen = {}

        def run(fn, side, plan=plan):
            outs = list(fn(*[list(v) if isinstance(v, list) else v for v in values]))
            other = seen["true"][0] if side == "false" else None
            lacking = _unassigned(outs, other, names, live_idx, loc, fills)
            if lacking is not None:
                raise _Refill(*lacking)
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
            merged = control_flow.cond(pred, lambda: run(true_fn, "true"),
                                    lambda: run(false_fn, "false"))
            break
        except _Replan as replan:
            _rollback(mark)
            plan = replan.plan
        except _Refill as refill:
            _rollback(mark)
            fills[refill.index] = refill.filler
            plan = None
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
            raise Error(f"{loc}: {subject(names[k])} is {describe(a)} in the true branch "
                        f"and {describe(b)} in the false branch of this `if` on a Tensor; give "
                        f"it the same structure in both branches")
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
    return UndefinedVar(name)
