"""Control flow in programs: cond (two conditional_block ops and select_input, the IR
the C++ builder makes), while_loop (a while op whose body block updates the loop
variables and the condition), switch_case and case built from cond. In eager mode
they run the Python branches and loops directly."""
import numbers

from .. import _C
from .. import _C_ops
from ..framework import nest
from ..framework.mode import mode
from ..framework.program import default_main_program
from ..framework.source import user_source
from ..framework.variable import Variable
from . import logic

__all__ = ["cond", "while_loop", "switch_case", "case"]


def _flatten(value):
    """(leaves, spec): the leaves of nested lists/tuples/dicts (a None is no leaf)."""
    leaves = []
    spec = nest.flatten(value, leaves, none_is_leaf=False)
    return leaves, spec


_pack = nest.pack


def _as_variable(value, what):
    """A Variable for a branch or loop value (Python numbers become constants)."""
    if isinstance(value, Variable):
        return value
    if isinstance(value, bool):
        dtype = "bool"
    elif isinstance(value, numbers.Integral):
        dtype = "int64"
    elif isinstance(value, numbers.Real):
        dtype = "float32"
    else:
        if hasattr(value, "_dtype_name"):  # an eager Tensor: captured by assign
            return _C_ops.assign(value)
        raise TypeError(f"{what} must be a Variable or a number, got {type(value).__name__}")
    return _C_ops.fill_constant(shape=[], value=float(value), dtype=dtype)


def _check_pred(pred, what):
    if pred._dtype_name != "bool" or pred.size not in (1, -1):
        raise _C.Error(f"{what} ({user_source()}): the condition must be a bool variable of one "
                       f"element, got '{pred.name}' {pred._dtype_name}{pred.shape}")


def _describe(spec):
    if spec is None:
        return "a variable"
    if spec == nest.NONE:
        return "None"
    if spec[0] is dict:
        return f"a dict with keys {spec[1]}"
    return f"a {spec[0].__name__} of {len(spec[1])}"


def cond(pred, true_fn=None, false_fn=None, name=None, return_names=None):
    """true_fn() if ``pred`` else false_fn(), as ops of the program: each branch is
    built into its own block; the results (same structure from both branches) are
    merged by select_input. In eager mode the chosen function is called."""
    if not isinstance(pred, Variable):
        chosen = true_fn if bool(pred) else false_fn
        return chosen() if chosen is not None else None
    _check_pred(pred, "cond")
    program = default_main_program()
    block = program.current_block()
    specs = {}

    source = user_source()

    def branch(fn, which):
        def build(sub_idx):
            with program._block_guard(sub_idx):
                leaves, specs[which] = _flatten(fn() if fn is not None else None)
                if which == "false_fn" and specs["true_fn"] != specs["false_fn"]:
                    raise _C.Error(
                        f"cond ({source}): true_fn returns {_describe(specs['true_fn'])} but "
                        f"false_fn returns {_describe(specs['false_fn'])}; both must return "
                        f"the same structure")
                return [_as_variable(v, f"cond's {which} result").name for v in leaves]
        return build

    names = _C.if_else(program.desc, block.idx, pred.name, branch(true_fn, "true_fn"),
                       branch(false_fn, "false_fn"), source)
    outs = [program._variable(program.desc.var_block(block.idx, n), n) for n in names]
    return _pack(specs["true_fn"], outs)


def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """Runs ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)`` holds, as a
    while op; returns the final loop variables. The inputs are copied first, so the
    variables passed in keep their values."""
    if not callable(cond) or not callable(body):
        raise TypeError("while_loop: cond and body must be callable")
    if not isinstance(loop_vars, (list, tuple)) or not loop_vars:
        raise TypeError("while_loop: loop_vars must be a non-empty list or tuple")
    if not mode.static:
        values = list(loop_vars)
        while bool(cond(*values)):
            out = body(*values)
            values = list(out) if isinstance(out, (list, tuple)) else [out]
        return values
    program = default_main_program()
    block = program.current_block()
    source = user_source()
    leaves, spec = _flatten(list(loop_vars))
    carried = [_C_ops.assign(_as_variable(v, "a loop variable")) for v in leaves]
    packed = _pack(spec, carried)
    first = cond(*packed)
    if not isinstance(first, Variable):
        raise _C.Error(f"while_loop ({source}): cond must return a bool Variable, got "
                       f"{type(first).__name__}")
    _check_pred(first, "while_loop")
    pred = _C_ops.assign(first)

    def build(sub_idx):
        with program._block_guard(sub_idx):
            out = body(*packed)
            out = list(out) if isinstance(out, (list, tuple)) else [out]
            new, new_spec = _flatten(out)
            if new_spec != spec:
                raise _C.Error(f"while_loop ({source}): body returns {_describe(new_spec)}, "
                               f"loop_vars are {_describe(spec)}")
            new = [_as_variable(v, "body's result") for v in new]
            # Values that are other loop variables are read before any is overwritten.
            new = [_C_ops.assign(v) if v is not c and any(v is o for o in carried)
                   else v for v, c in zip(new, carried)]
            for v, c in zip(new, carried):
                if v is not c:
                    _C_ops.assign(v, out=[c])
            _C_ops.assign(cond(*packed), out=[pred])

    _C.while_loop(program.desc, block.idx, pred.name, build, source)
    result = _pack(spec, carried)
    return result if isinstance(loop_vars, list) else tuple(result)


def case(pred_fn_pairs, default=None, name=None):
    """The function of the first (pred, fn) pair whose pred holds, else ``default``
    (when None: the last pair's function)."""
    pairs = list(pred_fn_pairs)
    if not pairs:
        raise ValueError("case: pred_fn_pairs is empty")
    for p in pairs:
        if not (isinstance(p, (list, tuple)) and len(p) == 2 and callable(p[1])):
            raise TypeError("case: pred_fn_pairs must hold (pred, callable) pairs")
    if default is None:
        *pairs, (_, default) = pairs

    def chain(i):
        if i == len(pairs):
            return default()
        pred, fn = pairs[i]
        return cond(pred, fn, lambda: chain(i + 1))
    return chain(0)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """The function of ``branch_fns`` keyed by ``branch_index`` (an int Variable):
    branch_fns is a dict {index: fn}, a list of (index, fn) pairs or a list of fns
    (indices 0, 1, ...). Without ``default``, the function of the largest index is
    used for indices that match none."""
    if isinstance(branch_fns, dict):
        pairs = list(branch_fns.items())
    elif all(callable(f) for f in branch_fns):
        pairs = list(enumerate(branch_fns))
    else:
        pairs = [tuple(p) for p in branch_fns]
    pairs.sort(key=lambda p: p[0])
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys) or not all(isinstance(k, numbers.Integral) for k in keys):
        raise ValueError(f"switch_case: branch indices must be distinct ints, got {keys}")
    if default is None:
        *pairs, (_, default) = pairs
    if not isinstance(branch_index, Variable):
        index = int(branch_index)
        return dict(pairs).get(index, default)()
    preds = [(logic.equal(branch_index, _C_ops.fill_constant(
        shape=[], value=float(k), dtype=branch_index._dtype_name)), fn)
        for k, fn in pairs]
    return case(preds, default) if preds else default()
