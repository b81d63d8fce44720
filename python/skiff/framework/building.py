"""Building programs: the static side of ``skiff.framework.core.apply`` (append the op
to the current block, infer shapes, return Variables), data(), parameters and global
variables initialised by the startup program."""
from .. import _C
from .._C import Tensor
from . import dtype as dt
from .op_schema import schema as op_schema
from .name_scope import record as record_namescope
from .program import default_main_program, default_startup_program, program_guard
from .source import user_source
from .variable import Variable

__all__ = ["data", "create_global_var"]


def _input_name(program, block, value, op_type, slot):
    """The variable name standing for an op input (eager Tensors are captured)."""
    if isinstance(value, Variable):
        if value.block.program is not program:
            raise _C.Error(f"op '{op_type}' ({user_source()}): input {slot} is variable "
                           f"'{value.name}' of another program")
        if program.desc.var_block(block.idx, value.name) < 0:
            raise _C.Error(
                f"op '{op_type}' ({user_source()}): input {slot} is variable '{value.name}', "
                f"declared in block {value.block.idx}, which block {block.idx} cannot see "
                f"(a value made inside a cond/while_loop body is used outside it; use the "
                f"values the body returns)")
        return value.name
    if isinstance(value, Tensor):
        return capture(program, value)
    raise _C.Error(f"op '{op_type}' ({user_source()}): input {slot} wants a Variable or a "
                   f"Tensor, got {type(value).__name__}")


def capture(program, tensor):
    """The persistable variable of ``program`` standing for eager ``tensor``: the
    Executor puts the tensor's value there before each run (and takes back a value the
    program writes), so eager parameters can be used inside static code."""
    name = program._captured_ids.get(id(tensor))
    if name is not None and program._captured.get(name) is tensor:
        return name
    name = tensor.name
    if not name or program.desc.has_var_anywhere(name):
        name = program._unique_name("captured")
    program.desc.add_var(0, name, tensor._dtype_name, list(tensor.shape), True,
                         bool(tensor.stop_gradient))
    program._captured[name] = tensor
    program._captured_ids[id(tensor)] = name
    return name


def static_apply(type, inputs, attrs, output_counts, out):
    """Appends op ``type`` to the current block of the default main program; returns
    its outputs as Variables, shaped like an eager call's result."""
    program = default_main_program()
    block = program.current_block()
    schema = op_schema(type)
    in_slots, out_slots = schema["inputs"], schema["outputs"]
    if len(inputs) > len(in_slots):
        raise _C.Error(f"op '{type}' takes {len(in_slots)} inputs "
                       f"({', '.join(s['name'] for s in in_slots)}), got {len(inputs)}")
    ins = {}
    for slot, value in zip(in_slots, inputs):
        if value is None:
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        ins[slot["name"]] = [_input_name(program, block, v, type, slot["name"]) for v in values]
    counts = list(output_counts) if output_counts else [1] * len(out_slots)
    outs, given = {}, []
    for k, slot in enumerate(out_slots):
        target = out[k] if out is not None and k < len(out) else None
        if target is not None:
            targets = list(target) if isinstance(target, (list, tuple)) else [target]
            names = [_input_name(program, block, v, type, slot["name"]) for v in targets]
        else:
            base = program._unique_name(type)
            names = [f"{base}.tmp_{i}" for i in range(counts[k])]
        given.append(target is not None)
        if names:
            outs[slot["name"]] = names
    index = program.desc.append_op(block.idx, type, ins, outs, attrs or None, user_source())
    record_namescope(program, block.idx, index)

    results = []
    for k, slot in enumerate(out_slots):
        names = outs.get(slot["name"], [])
        vs = [_declared(program, block, n) for n in names]
        if given[k] and not isinstance(out[k], (list, tuple)):
            results.append(out[k])
        elif slot["duplicable"]:
            results.append(vs)
        else:
            results.append(vs[0] if vs else None)
    if len(results) == 1 and not out_slots[0]["duplicable"]:
        return results[0]
    return tuple(results)


def _declared(program, block, name):
    at = program.desc.var_block(block.idx, name)
    if at < 0:  # an op whose shape inference leaves an output undeclared
        program.desc.add_var(block.idx, name, "float32", [])
        at = block.idx
    return program._variable(at, name)


def data(name, shape, dtype=None, lod_level=0):
    """Declares an input the Executor feeds: ``shape`` may hold -1 or None for dims
    known at run time; ``dtype`` defaults to float32."""
    program = default_main_program()
    shape = [-1 if s is None else int(s) for s in shape]
    dtype = dt.dtype_name(dtype or "float32")
    d = program.desc.var(0, name)
    if d is not None:
        if list(d.shape) != shape or d.dtype != dtype:
            raise _C.Error(f"data '{name}': the program already declares it as "
                           f"{d.dtype}{list(d.shape)}, now {dtype}{shape}")
        return program._variable(0, name)
    program.desc.add_var(0, name, dtype, shape, False, True)
    program._data_sources[name] = user_source()
    return program._variable(0, name)


def _fill_in(program, name, shape, dtype, value):
    with program_guard(program):
        if not program.desc.var(0, name):
            program.desc.add_var(0, name, dtype, shape, True, True)
        static_apply("fill_constant", (), {"shape": shape, "value": float(value),
                                           "dtype": dtype}, None, [program._variable(0, name)])


def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """A variable of the main program's global block that the startup program fills
    with ``value`` (learning rates, counters)."""
    main = default_main_program()
    name = name or main._unique_name("global_var")
    shape = [int(s) for s in shape]
    dtype = dt.dtype_name(dtype)
    if main.desc.var(0, name) is None:
        main.desc.add_var(0, name, dtype, shape, bool(persistable), True)
    _fill_in(default_startup_program(), name, shape, dtype, value)
    return main._variable(0, name)
