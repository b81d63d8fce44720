"""Programs and parameters on disk: save_inference_model / load_inference_model (the
forward part needed for the fetch targets, as path_prefix.skmodel with its feed and
fetch names, plus path_prefix.skparams), and save / load of a program's persistables."""
import os

from .. import _C
from ..framework.scope import global_scope
from ..framework.program import Program, default_main_program
from ..framework.variable import Variable

__all__ = ["save_inference_model", "load_inference_model", "save", "load",
           "serialize_program", "deserialize_program", "normalize_program"]


def _names(vars_, what):
    vars_ = vars_ if isinstance(vars_, (list, tuple)) else [vars_]
    out = []
    for v in vars_:
        if not isinstance(v, Variable):
            raise TypeError(f"{what} must hold static Variables, got {type(v).__name__}")
        if v.block.idx != 0:
            raise _C.Error(f"{what}: '{v.name}' is not a variable of the global block")
        out.append(v.name)
    return out


def _names_in_sub_blocks(program):
    names = set()
    for b in range(1, program.desc.num_blocks):
        for i in range(program.desc.num_ops(b)):
            op = program.desc.op(b, i)
            names.update(op.input_names)
            names.update(op.output_names)
    return names


def normalize_program(program, feed_vars, fetch_vars):
    """A copy of ``program`` holding only the ops of block 0 that the fetch targets need
    from the feeds (no backward or optimizer ops), in inference mode (is_test), with
    its feed and fetch names recorded."""
    feeds, fetches = _names(feed_vars, "feed_vars"), _names(fetch_vars, "fetch_vars")
    p = program.clone(for_test=True)
    desc = p.desc
    needed = set(fetches)
    keep, drop = set(), []
    ops = [desc.op(0, i) for i in range(desc.num_ops(0))]
    for i in range(len(ops) - 1, -1, -1):
        op = ops[i]
        if not any(n in needed for n in op.output_names):
            drop.append(i)
            continue
        keep.add(i)
        for n in op.input_names:
            d = desc.var(0, n)
            # Parameters come from the parameter file and feeds from the caller.
            if n not in feeds and not (d is not None and d.persistable):
                needed.add(n)
    desc.remove_ops(0, drop)
    used = set(feeds) | set(fetches) | _names_in_sub_blocks(p)
    for i in keep:
        used.update(ops[i].input_names)
        used.update(ops[i].output_names)
    for n in desc.var_names(0):
        if n not in used:
            desc.remove_var(0, n)
    missing = [n for n in needed - set(feeds) if desc.var(0, n) is not None
               and not desc.var(0, n).persistable and not any(
                   n in ops[i].output_names for i in keep)]
    if missing:
        raise _C.Error(f"save_inference_model: the fetch targets need {sorted(missing)}, which "
                       f"are neither fed nor computed by the program")
    desc.feed_names = feeds
    desc.fetch_names = fetches
    _C.verify_program(desc)
    return p


def save_inference_model(path_prefix, feed_vars, fetch_vars, executor, program=None, **kwargs):
    """Writes path_prefix.skmodel (the pruned inference program) and
    path_prefix.skparams (its parameters, read from the global scope)."""
    fetch_list = fetch_vars if isinstance(fetch_vars, (list, tuple)) else [fetch_vars]
    if program is None:
        program = fetch_list[0].block.program if fetch_list else default_main_program()
    pruned = normalize_program(program, feed_vars, fetch_vars)
    folder = os.path.dirname(path_prefix)
    if folder:
        os.makedirs(folder, exist_ok=True)
    _C.save_program(pruned.desc, path_prefix + ".skmodel")
    _C.save_persistables(path_prefix + ".skparams", pruned.desc, global_scope()._scope)


def load_inference_model(path_prefix, executor, model_filename=None, params_filename=None,
                         **kwargs):
    """Reads a saved inference program and loads its parameters into the global scope;
    returns [program, feed_names, fetch_targets]."""
    model = model_filename or path_prefix + ".skmodel"
    params = params_filename or path_prefix + ".skparams"
    desc = _C.load_program(model)
    _C.verify_program(desc)
    program = Program(desc)
    _C.load_persistables(params, desc, global_scope()._scope)
    block = program.global_block()
    return [program, list(desc.feed_names), [block.var(n) for n in desc.fetch_names]]


def serialize_program(feed_vars, fetch_vars, program=None, **kwargs):
    """The bytes of the pruned inference program (.skmodel content)."""
    fetch_list = fetch_vars if isinstance(fetch_vars, (list, tuple)) else [fetch_vars]
    program = program or fetch_list[0].block.program
    return _C.program_to_bytes(normalize_program(program, feed_vars, fetch_vars).desc)


def deserialize_program(data):
    return Program(_C.program_from_bytes(data))


def save(program, model_path, protocol=4, **configs):
    """Writes the program (model_path.skmodel) and every persistable variable of it
    (parameters and optimizer state, model_path.skparams) from the global scope."""
    folder = os.path.dirname(model_path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    _C.save_program(program.desc, model_path + ".skmodel")
    _C.save_persistables(model_path + ".skparams", program.desc, global_scope()._scope)


def load(program, model_path, executor=None, var_list=None):
    """Loads every persistable variable of ``program`` from model_path.skparams into
    the global scope."""
    path = model_path if model_path.endswith(".skparams") else model_path + ".skparams"
    _C.load_persistables(path, program.desc, global_scope()._scope)
