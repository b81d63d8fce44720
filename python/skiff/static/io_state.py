"""Program state as bytes and dicts (paddle.static.save_to_file, load_from_file,
serialize_persistables, deserialize_persistables, load_program_state,
set_program_state), in the .skparams format that static.save / static.load use."""
import os
import tempfile

import numpy as np

from .. import _C
from ..framework.scope import global_scope
from .io import normalize_program
from ..framework.program import Program
from ..framework.variable import Variable

__all__ = ["save_to_file", "load_from_file", "serialize_persistables",
           "deserialize_persistables", "load_program_state", "set_program_state"]


def save_to_file(path, content):
    """Writes the bytes ``content`` to ``path``."""
    if not isinstance(content, bytes):
        raise ValueError(f"save_to_file: content must be bytes, got {type(content).__name__}")
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(content)


def load_from_file(path):
    """The bytes of the file at ``path``."""
    if not os.path.isfile(path):
        raise ValueError(f"load_from_file: no file at path {path!r}")
    with open(path, "rb") as f:
        return f.read()


def _via_file(write):
    fd, path = tempfile.mkstemp(suffix=".skparams")
    os.close(fd)
    try:
        return write(path)
    finally:
        os.remove(path)


def serialize_persistables(feed_vars, fetch_vars, executor, **kwargs):
    """The .skparams bytes of the persistables that the inference program from
    ``feed_vars`` to ``fetch_vars`` uses, read from the global scope."""
    fetch_list = fetch_vars if isinstance(fetch_vars, (list, tuple)) else [fetch_vars]
    program = kwargs.get("program") or fetch_list[0].block.program
    pruned = normalize_program(program, feed_vars, fetch_vars)

    def write(path):
        _C.save_persistables(path, pruned.desc, global_scope()._scope)
        with open(path, "rb") as f:
            return f.read()
    return _via_file(write)


def deserialize_persistables(program, data, executor):
    """Loads the persistables of ``program`` from serialize_persistables' bytes into
    the global scope; returns ``program``."""
    if not isinstance(program, Program):
        raise TypeError(f"deserialize_persistables: program must be a Program, got "
                        f"{type(program).__name__}")
    if not isinstance(data, bytes):
        raise TypeError(f"deserialize_persistables: data must be bytes, got "
                        f"{type(data).__name__}")

    def read(path):
        with open(path, "wb") as f:
            f.write(data)
        _C.load_persistables(path, program.desc, global_scope()._scope)
    _via_file(read)
    return program


def _persistable_names(desc):
    return [n for b in range(desc.num_blocks) for n in desc.var_names(b)
            if desc.var(b, n) is not None and desc.var(b, n).persistable]


def load_program_state(model_path, var_list=None):
    """{name: numpy array} of what static.save wrote at ``model_path`` (the program
    model_path.skmodel and its persistables model_path.skparams); ``var_list``
    (Variables) keeps only those."""
    base = model_path[:-len(".skparams")] if model_path.endswith(".skparams") else model_path
    for suffix in (".skmodel", ".skparams"):
        if not os.path.isfile(base + suffix):
            raise ValueError(f"load_program_state: no file {base + suffix} (model_path is "
                             f"the prefix given to skiff.static.save)")
    desc = _C.load_program(base + ".skmodel")
    scope = _C.Scope()
    _C.load_persistables(base + ".skparams", desc, scope)
    names = _persistable_names(desc)
    if var_list is not None:
        wanted = []
        for v in var_list:
            if not isinstance(v, Variable):
                raise TypeError(f"load_program_state: var_list must hold Variables, got "
                                f"{type(v).__name__}")
            if v.name not in names:
                raise ValueError(f"load_program_state: '{v.name}' is not saved in {base}")
            wanted.append(v.name)
        names = wanted
    return {n: scope.get(n).numpy() for n in names if scope.get(n) is not None}


def set_program_state(program, state_dict):
    """Puts the arrays of ``state_dict`` into the global scope for the persistable
    variables of ``program`` that it names (shapes must agree); names it lacks are
    skipped."""
    if not isinstance(program, Program):
        raise TypeError(f"set_program_state: program must be a Program, got "
                        f"{type(program).__name__}")
    scope = global_scope()
    for name in _persistable_names(program.desc):
        if name not in state_dict:
            continue
        value = np.asarray(state_dict[name])
        declared = program.global_block().var(name) if program.global_block().has_var(name) \
            else None
        if declared is not None:
            shape = [int(s) for s in declared.shape]
            if len(shape) != value.ndim or any(s >= 0 and s != v
                                                for s, v in zip(shape, value.shape)):
                raise ValueError(f"set_program_state: '{name}' is declared {shape}, the "
                                 f"state holds shape {list(value.shape)}")
            value = value.astype(declared._dtype_name, copy=False)
        scope.set(name, value)
