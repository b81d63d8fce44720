"""A converted loop whose condition became a Tensor: the remaining steps are one
skiff.static.nn.while_loop over the loop-carried variables. Python numbers become
tensors before the loop (traced again with the dtype and shape the body gives them),
Tensors the function made eagerly (to_tensor, zeros, full, ...) program variables holding
their values, lists become tensor arrays, and a variable the loop cannot carry is an error
naming it.

A variable the loop assigns before reading it but that has no value before the loop (a
result first computed in the loop, the value of a `return` inside it) is traced once as
unset: the body's first assignment tells its dtype and shape, and the loop is built again
carrying zeros of them (what it holds only if the loop runs no step, where Python would
have no value at all). A body that reads it before assigning it is refused. A variable
that is None before the loop gets its first step run before the loop, as Python runs it
(`if h is None: h = x`), under an assert op that the loop runs at least that step."""
from .. import _C
from .. import _C_ops
from .static_control import (ArrayList, Filler, UndefinedVar, _is_number, _is_undefined,
                             _number_dtype, as_condition, as_program_var, constant, describe,
                             flatten, is_array, is_eager_tensor, is_numeric_ndarray,
                             is_static_var, new_array, subject, unflatten)
from .ast_lowering import RETURN_VALUE
from ..framework import dtype as dt
from ..framework.program import default_main_program
from ..tensor import control_flow
from ..tensor.creation import to_tensor

Error = _C.Error


class _Retype(Exception):
    def __init__(self, position, dtype):
        super().__init__()
        self.position, self.dtype = position, dtype


class _Reshape(Exception):
    """Leaf ``position`` (a Python number or an ndarray) becomes a Tensor of ``dtype``
    and ``shape`` in the body: build the loop again carrying one from the start."""

    def __init__(self, loop, position, dtype, shape):
        super().__init__()
        self.loop, self.position, self.dtype, self.shape = loop, position, dtype, list(shape)


class Learned(Exception):
    """Loop variable ``index`` of ``loop``, unset before it, is assigned what ``filler``
    stands for in the body: build the loop again carrying the filler's zeros."""

    def __init__(self, loop, index, filler):
        super().__init__()
        self.loop, self.index, self.filler = loop, index, filler


class Unset(UndefinedVar):
    """A loop variable with no value before the loop, while its body is traced to learn
    what the body assigns to it (static_branches raises Learned for one merged with a
    value, the loop for one the step returns)."""
    __slots__ = ("loop", "index")

    def __init__(self, name, loop, index):
        super().__init__(name)
        object.__setattr__(self, "loop", loop)
        object.__setattr__(self, "index", index)

    def learned(self, value):
        """Learned for ``value`` assigned to this variable; the loop's refusal when the
        value cannot start a loop (unknown dims, tensor arrays, None)."""
        def refuse(reason):
            return _undefined_error(self.name, self.loop.loc, None, reason)
        if value is None:
            raise refuse("the loop assigns it None")
        return Learned(self.loop, self.index, Filler(value, refuse))


class _Loop:
    """One while_loop call (Learned and Unset name the loop they belong to)."""

    def __init__(self, loc):
        self.loc = loc


def _undefined_error(name, loc, value, why=None):
    if name == RETURN_VALUE:
        reason = f" ({why})" if why else ""
        return Error(f"{loc}: a `return` inside this loop, whose condition depends on a "
                     f"Tensor, cannot be converted{reason}; assign the result to a variable "
                     f"defined before the loop and `break` instead")
    what = "None" if value is None and why is None else "not assigned"
    reason = f" ({why})" if why else ""
    return Error(f"{loc}: variable '{name}' is {what} before this loop, whose condition "
                 f"depends on a Tensor, and the loop assigns it{reason}; a `while` op carries "
                 f"Tensors (numbers and lists of Tensors become Tensors), so give '{name}' a "
                 f"Tensor value of its final shape and dtype before the loop")


class _Leaf:
    """How one leaf of the loop variables is carried."""

    def __init__(self, kind, value, dtype=None):
        self.kind = kind      # "var", "number" (made a tensor), "array", "const"
        self.value = value
        self.dtype = dtype


def _carry(value, name, loc, dtype_hint, shape, loop, index):
    if isinstance(value, ArrayList):
        return _Leaf("array", value.var)
    if is_static_var(value):
        return _Leaf("array" if value.type == "tensor_array" else "var", value)
    if _is_undefined(value):  # trace the body once to learn what it assigns
        return _Leaf("unset", Unset(name, loop, index))
    if value is None:
        raise _undefined_error(name, loc, value)
    if shape is not None and is_numeric_ndarray(value):  # an ndarray the loop changes
        return _Leaf("var", as_program_var(to_tensor(value, dtype_hint)))
    if _is_number(value):
        dtype = dtype_hint or _number_dtype(value)
        return _Leaf("number", constant(value, dtype, shape or ()), dtype)
    if is_eager_tensor(value):  # made in the function (to_tensor, zeros, full, ...)
        return _Leaf("var", as_program_var(value))
    if isinstance(value, list):
        if not all(is_static_var(v) for v in value):
            bad = next(v for v in value if not is_static_var(v))
            raise Error(f"{loc}: list '{name}' is changed in this loop on a Tensor, so it "
                        f"becomes a tensor array, which holds Tensors; it holds {describe(bad)}")
        dtype = dtype_hint or (value[0]._dtype_name if value else "float32")
        return _Leaf("array", new_array(dtype, value), dtype)
    return _Leaf("const", value)


def while_loop(cond_fn, body_fn, values, names, loc):
    """Builds the while op; returns the values of ``names`` after the loop. A failed
    attempt is rolled back and retried with other dtypes for the Python numbers
    (from the body's dtypes, or float32 for ints that meet floats)."""
    if any(v is None for v in _leaves(values)):
        values, ended = _peel_first_step(cond_fn, body_fn, values, names, loc)
        if ended:
            return values
    hints, shapes, fills = {}, {}, {}
    leaves = _leaves(values)
    ints = [p for p, v in enumerate(leaves) if isinstance(v, int) and not isinstance(v, bool)]
    unset = sum(1 for v in values if _is_undefined(v))
    loop = _Loop(loc)
    mark = _mark()
    first_error, candidates = None, list(ints)
    for _ in range(8 + len(ints) + 2 * (unset + len(leaves))):
        try:
            # Variables learned unset: their zeros, made anew in each attempt.
            start = [fills[k].build() if k in fills else v for k, v in enumerate(values)]
            return _build(cond_fn, body_fn, start, names, loc, hints, shapes, loop)
        except _Retype as retype:
            _rollback(mark)
            hints[retype.position] = retype.dtype
        except (_Reshape, Learned) as learned:
            if learned.loop is not loop:
                raise
            _rollback(mark)
            if isinstance(learned, Learned):
                fills[learned.index] = learned.filler
                hints, shapes = {}, {}  # (leaf positions move with the new structure)
            else:
                hints[learned.position] = learned.dtype
                shapes[learned.position] = learned.shape
        except UnboundLocalError as e:
            # (UndefinedVar's error names the variable read)
            probed = [n for n, v in zip(names, values)
                      if _is_undefined(v) and f"'{n}'" in str(e)]
            if not probed:
                raise
            _rollback(mark)
            raise _undefined_error(probed[0], loc, None,
                                   "the loop reads it before assigning it") from None
        except Error as e:
            _rollback(mark)
            first_error = first_error or e
            for p in ints:  # the previous guess did not help
                if hints.get(p) == "float32" and p not in candidates:
                    del hints[p]
            if not candidates:
                raise first_error
            hints[candidates.pop(0)] = "float32"
    raise Error(f"{loc}: to_static could not settle the dtypes of this loop's variables")


def _peel_first_step(cond_fn, body_fn, values, names, loc):
    """A variable that is None before a loop on a Tensor (``h = None`` ... ``if h is
    None: h = x else: h = h + x``): the first step runs before the loop, as Python runs
    it, under an assert op that the loop's condition holds (a loop of no step would leave
    None, which a program cannot hold: it stops with an error naming the variable and the
    line). Returns the values after it and whether the loop ended there (its condition
    turned into a Python value that ends it); else the remaining steps go on as a loop."""
    none = [n for n, v in zip(names, values) if v is None or (
        isinstance(v, (list, tuple, dict)) and any(x is None for x in _leaves([v])))]
    cond = as_condition(cond_fn(*values))
    _C_ops.assert_(cond, message=(
        f"{loc}: this loop on a Tensor ran no step, but to_static runs its first step before "
        f"it because {', '.join(repr(n) for n in none)} is None before the loop; give it a "
        f"Tensor value before the loop (None cannot be a program's value)"))
    values = tuple(body_fn(*values))
    while True:
        cond = cond_fn(*values)
        if is_static_var(cond):
            return values, False
        if not cond:
            return values, True
        values = tuple(body_fn(*values))


def _leaves(values):
    out = []
    for v in values:
        if isinstance(v, list):
            out.append(v)
        else:
            flatten(v, out)
    return out


def _mark():
    program = default_main_program()
    block = program.current_block_idx()
    return program, block, program.desc.num_ops(block)


def _rollback(mark):
    """Removes the ops a failed attempt appended to the current block."""
    program, block, count = mark
    now = program.desc.num_ops(block)
    if now > count:
        program.desc.remove_ops(block, list(range(count, now)))


def _build(cond_fn, body_fn, values, names, loc, hints, shapes, loop):
    specs, leaves, owner = [], [], []
    for k, v in enumerate(values):
        bad = [x for x in v if not (_is_number(x) or is_static_var(x))] \
            if isinstance(v, list) else []
        if bad:
            raise Error(f"{loc}: list '{names[k]}' is changed in this loop on a Tensor, so it "
                        f"becomes a tensor array, which holds Tensors; it holds "
                        f"{describe(bad[0])}")
        items = []
        # A list carried by a loop is one tensor array, not a structure of leaves.
        specs.append(None if isinstance(v, list) else flatten(v, items))
        if isinstance(v, list):
            items = [v]
        leaves.extend(items)
        owner.extend([k] * len(items))
    carried = [_carry(v, names[owner[p]], loc, hints.get(p), shapes.get(p), loop, owner[p])
               for p, v in enumerate(leaves)]
    # Tensor arrays are written in place by the body: the while op sees them as outer
    # variables it writes, not as loop variables copied at every step.
    loop_pos = [p for p, c in enumerate(carried) if c.kind in ("var", "number")]

    def rebuild(vars_):
        it = iter(vars_)
        flat = [c.value if c.kind in ("const", "unset") else
                ArrayList(c.value) if c.kind == "array" else next(it) for c in carried]
        for c, v in zip(carried, flat):
            if c.kind == "number" and c.dtype == "int64":  # a Python int counter
                v._python_int = True
        out, pos = [], 0
        for spec in specs:
            count = _count(spec)
            out.append(unflatten(spec, flat[pos:pos + count]))
            pos += count
        return out

    def cond(*vars_):
        c = cond_fn(*rebuild(vars_))
        return as_condition(c) if is_static_var(c) else constant(bool(c), "bool")

    unsets = {owner[p]: c.value for p, c in enumerate(carried) if c.kind == "unset"}

    def body(*vars_):
        outs = body_fn(*rebuild(vars_))
        new = []
        for k, (spec, out) in enumerate(zip(specs, outs)):
            if k in unsets and not _is_undefined(out):
                raise unsets[k].learned(out)
            items = []
            got = None if isinstance(out, list) and spec is None else flatten(out, items)
            if spec is None and isinstance(out, list):
                items = [out]
            if got != spec:
                raise Error(f"{loc}: {subject(names[k], 'loop variable')} is "
                            f"{describe(values[k])} before the loop and {describe(out)} after "
                            f"a step")
            new.extend(items)
        result = []
        for p, (c, v) in enumerate(zip(carried, new)):
            result.extend(_step_value(c, v, p, names[owner[p]], loc, loop))
        return result

    init = [carried[p].value for p in loop_pos]
    if not init:
        raise Error(f"{loc}: this loop on a Tensor carries no Tensor variables")
    out = control_flow.while_loop(cond, body, init)
    # A variable no step assigned is as undefined after the loop as before it.
    return tuple(_forget_loop(v) for v in rebuild(list(out)))


def _forget_loop(value):
    if isinstance(value, Unset):
        return UndefinedVar(value.name)
    if isinstance(value, (list, tuple)):
        return type(value)(_forget_loop(v) for v in value)
    if isinstance(value, dict):
        return {k: _forget_loop(v) for k, v in value.items()}
    return value


def _step_value(c, v, position, name, loc, loop):
    if c.kind == "unset":
        if _is_undefined(v):
            return []
        raise c.value.learned(v)  # (a structure the step returns was caught before)
    if c.kind == "const":
        if v is not c.value and is_numeric_ndarray(c.value) and \
                (is_numeric_ndarray(v) or is_static_var(v)):
            # An ndarray the body changes: carried as a Tensor of its dtype.
            raise _Reshape(loop, position, dt.dtype_name(c.value.dtype), c.value.shape)
        if v is not c.value:
            raise Error(f"{loc}: {subject(name)} ({describe(c.value)}) is changed in this "
                        f"loop on a Tensor; only Tensors, numbers, numeric ndarrays and lists "
                        f"of Tensors can be (they become Tensors)")
        return []
    if c.kind == "array":
        var = v.var if isinstance(v, ArrayList) else v
        if is_array(v) and var.name == c.value.name:
            return []
        if is_array(v):  # (pop() makes a new array)
            raise Error(f"{loc}: list '{name}' is a tensor array this loop on a Tensor carries; "
                        f"inside the loop it can only grow (append): pop() or a new list makes "
                        f"another array, which the loop cannot carry; pop after the loop, or "
                        f"read xs[k] instead")
        raise Error(f"{loc}: list '{name}' is grown in this loop on a Tensor (a tensor array); "
                    f"change it with append only (it became {describe(v)})")
    if is_static_var(v):
        want = c.value._dtype_name
        if v._dtype_name != want:
            if c.kind == "number":
                raise _Retype(position, v._dtype_name)
            raise Error(f"{loc}: {subject(name, 'loop variable')} is {want} before the loop and "
                        f"{v._dtype_name} after a step; cast it so the dtype stays the same")
        if c.kind == "number" and not c.value.shape and list(v.shape) and \
                all(d >= 0 for d in v.shape):  # a Python number the body makes a Tensor
            raise _Reshape(loop, position, v._dtype_name, v.shape)
        _check_shape(c.value, v, name, loc)
        return [v]
    if _is_number(v):
        return [constant(v, c.value._dtype_name)]
    raise Error(f"{loc}: {subject(name, 'loop variable')} is {describe(c.value)} before the "
                f"loop and {describe(v)} after a step")


def _check_shape(before, after, name, loc):
    a, b = before.shape, after.shape
    bad = len(a) != len(b) or any(x >= 0 and y >= 0 and x != y for x, y in zip(a, b))
    if bad:
        raise Error(f"{loc}: {subject(name, 'loop variable')} has shape {a} before the loop "
                    f"and {b} after a step; give it its final shape before the loop")


def _count(spec):
    if spec is None:
        return 1
    children = spec[2] if spec[0] is dict else spec[1]
    return sum(_count(s) for s in children)

