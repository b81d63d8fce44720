"""Programs as Python sees them: Program (blocks of ops over a ``_C.Program``), Block,
Operator, the default main/startup programs and ``program_guard``. Every edit goes
through the C++ program, which infers shapes as ops are appended."""
import collections
import contextlib

from .. import _C
from . import dtype as dt
from .name_scope import NAMESCOPE_ATTR
from .name_scope import lookup as lookup_namescope
from .program_text import program_text
from .scope import global_scope
from .source import user_source
from .variable import Parameter, Variable

__all__ = ["Program", "Block", "Operator", "default_main_program", "default_startup_program",
           "program_guard"]


class Operator:
    """One op of a block (a snapshot: type, slots, attributes, source line)."""

    def __init__(self, block, index, desc):
        self.block = block
        self.idx = index
        self.desc = desc

    @property
    def type(self):
        return self.desc.type

    def input(self, slot):
        return list(self.desc.input(slot))

    def output(self, slot):
        return list(self.desc.output(slot))

    @property
    def input_names(self):
        return [slot for slot, _ in self.desc.inputs]

    @property
    def output_names(self):
        return [slot for slot, _ in self.desc.outputs]

    @property
    def input_arg_names(self):
        return list(self.desc.input_names)

    @property
    def output_arg_names(self):
        return list(self.desc.output_names)

    def attr(self, name):
        if name == NAMESCOPE_ATTR:
            return lookup_namescope(self.block.program, self.block.idx, self.desc)
        return self.desc.attr(name)

    def has_attr(self, name):
        return name == NAMESCOPE_ATTR or self.desc.has_attr(name)

    @property
    def attr_names(self):
        return list(self.desc.attr_names) + [NAMESCOPE_ATTR]

    def all_attrs(self):
        return {n: self.attr(n) for n in self.attr_names}

    def _set_attr(self, name, value):
        self.block.program.desc.set_op_attr(self.block.idx, self.idx, name, value)
        self.desc = self.block.program.desc.op(self.block.idx, self.idx)

    @property
    def source(self):
        return self.desc.source

    def __repr__(self):
        ins = ", ".join(f"{s}={v}" for s, v in self.desc.inputs)
        outs = ", ".join(f"{s}={v}" for s, v in self.desc.outputs)
        return f"{{{outs}}} = {self.type}({ins})"


class Block:
    """A block of a program: its variables and ops. Block 0 is the global block;
    cond and while_loop bodies are blocks nested under the block that runs them."""

    def __init__(self, program, idx):
        self.program = program
        self.idx = idx

    @property
    def parent_idx(self):
        return self.program.desc.parent_idx(self.idx)

    @property
    def ops(self):
        d = self.program.desc
        return [Operator(self, i, d.op(self.idx, i)) for i in range(d.num_ops(self.idx))]

    @property
    def vars(self):
        """Variables declared in this block, by name."""
        return {n: self.program._variable(self.idx, n)
                for n in self.program.desc.var_names(self.idx)}

    def has_var(self, name):
        return self.program.desc.var_block(self.idx, name) == self.idx

    def var(self, name):
        """The Variable ``name`` as seen from this block (declared here or in an
        enclosing block); ValueError when there is none."""
        at = self.program.desc.var_block(self.idx, name)
        if at < 0:
            raise ValueError(f"variable '{name}' is not declared in block {self.idx} or "
                             f"the blocks enclosing it")
        return self.program._variable(at, name)

    _var_recursive = var

    def all_parameters(self):
        """The parameters declared in this block, in creation order."""
        d = self.program.desc
        return [v for (b, n), v in self.program._vars.items()
                if b == self.idx and getattr(v, "_is_parameter", False)
                and d.var_block(self.idx, n) == self.idx]

    def iter_parameters(self):
        return iter(self.all_parameters())

    def create_var(self, name=None, shape=(), dtype="float32", persistable=False,
                   stop_gradient=False, type=None, **kwargs):
        """Declares a variable in this block (a fresh name when ``name`` is None)."""
        kind = {None: "tensor", "tensor_array": "tensor_array",
                "selected_rows": "selected_rows"}.get(type, "tensor")
        name = name or self.program._unique_name("_generated_var")
        if not self.has_var(name):
            shape = [-1 if s is None else int(s) for s in (shape or ())]
            self.program.desc.add_var(self.idx, name, dt.dtype_name(dtype), shape, persistable,
                                      stop_gradient, kind)
        return self.program._variable(self.idx, name)

    def create_parameter(self, shape, dtype="float32", name=None, initializer=None,
                         trainable=True, optimize_attr=None, regularizer=None, need_clip=True,
                         **kwargs):
        """A parameter of the program (a persistable variable of its global block, as
        Paddle's Block.create_parameter) that ``initializer``, when given, fills in the
        default startup program. skiff.static.create_parameter picks initializers."""
        main, startup = self.program, default_startup_program()
        shape = [int(s) for s in shape]
        dtype = dt.dtype_name(dtype)
        name = name or main._unique_name("parameter")
        d = main.desc.var(0, name)
        if d is not None:
            if list(d.shape) != shape or d.dtype != dtype:
                raise _C.Error(f"parameter '{name}' already exists as {d.dtype}"
                               f"{list(d.shape)}, asked for {dtype}{shape}")
            return main._variable(0, name)
        main.desc.add_var(0, name, dtype, shape, True, not trainable)
        param = Parameter(main.global_block(), name, trainable,
                          optimize_attr or {"learning_rate": 1.0}, regularizer, need_clip)
        main._vars[(0, name)] = param
        if initializer is not None and startup.desc.var(0, name) is None:
            startup.desc.add_var(0, name, dtype, shape, True, True)
            with program_guard(startup), startup._block_guard(0):
                value = initializer._value(shape, dtype)
                startup.global_block().append_op("assign", {"X": value},
                                                 {"Out": startup._variable(0, name)})
        return param

    def append_op(self, type, inputs=None, outputs=None, attrs=None, **kwargs):
        """Appends op ``type``: ``inputs`` / ``outputs`` map slot names to Variables (or
        lists of them); output shapes are inferred. Returns the Operator."""
        def names(slots):
            out = {}
            for slot, vs in (slots or {}).items():
                vs = vs if isinstance(vs, (list, tuple)) else [vs]
                out[slot] = [v if isinstance(v, str) else v.name for v in vs]
            return out

        d = self.program.desc
        i = d.append_op(self.idx, type, names(inputs), names(outputs), attrs or None,
                        user_source())
        return Operator(self, i, d.op(self.idx, i))

    def __repr__(self):
        return f"Block(idx={self.idx}, parent_idx={self.parent_idx}, ops={len(self.ops)})"


class Program:
    """A program under construction: block 0 and the blocks nested in it. ``str()``
    shows it as text; ``clone()`` copies it."""

    def __init__(self, _desc=None):
        self.desc = _desc if _desc is not None else _C.Program()
        self._block_stack = [0]
        self._vars = {}            # (block, name) -> Variable
        self._names = collections.defaultdict(int)
        self._data_sources = {}    # data variable -> "file:line" that declared it
        self._captured = {}        # variable name -> the eager Tensor it stands for
        self._captured_ids = {}    # id(tensor) -> variable name
        self._op_namescopes = {}   # (block, first output) -> name_scope path
        self._grad_regions = []    # grad_regions.GradRegion: static_pylayer's regions
        self.random_seed = 0
        self.lr_scheduler = None

    # -- blocks --
    @property
    def num_blocks(self):
        return self.desc.num_blocks

    @property
    def blocks(self):
        return [Block(self, i) for i in range(self.desc.num_blocks)]

    def block(self, index):
        if not 0 <= index < self.desc.num_blocks:
            raise IndexError(f"block {index} does not exist (the program has "
                             f"{self.desc.num_blocks})")
        return Block(self, index)

    def global_block(self):
        return Block(self, 0)

    def current_block(self):
        return Block(self, self._block_stack[-1])

    def current_block_idx(self):
        return self._block_stack[-1]

    @contextlib.contextmanager
    def _block_guard(self, idx):
        """Ops appended within go to block ``idx`` (a cond or while_loop body)."""
        self._block_stack.append(idx)
        try:
            yield Block(self, idx)
        finally:
            self._block_stack.pop()

    # -- variables --
    def _variable(self, block_idx, name):
        key = (block_idx, name)
        v = self._vars.get(key)
        if v is None:
            v = self._vars[key] = Variable(Block(self, block_idx), name)
        return v

    def _unique_name(self, prefix):
        while True:
            n = self._names[prefix]
            self._names[prefix] = n + 1
            name = f"{prefix}_{n}"
            if not self.desc.has_var_anywhere(name):
                return name

    def list_vars(self):
        for b in range(self.desc.num_blocks):
            for n in self.desc.var_names(b):
                yield self._variable(b, n)

    def all_parameters(self):
        return self.global_block().all_parameters()

    # -- whole program --
    def clone(self, for_test=False):
        """A copy of the program (its parameters' Python attributes included). With
        ``for_test`` the ops that have an ``is_test`` attribute (dropout, batch_norm)
        switch to inference behaviour; clone before minimize() to leave out training."""
        p = Program(self.desc.clone())
        for (b, name), v in self._vars.items():
            if getattr(v, "_is_parameter", False):
                p._vars[(b, name)] = v._copy_to(p)
        p._names = collections.defaultdict(int, self._names)
        p._data_sources = dict(self._data_sources)
        p._captured = dict(self._captured)
        p._captured_ids = dict(self._captured_ids)
        p._op_namescopes = dict(self._op_namescopes)
        p._grad_regions = list(self._grad_regions)
        p.random_seed = self.random_seed
        p.lr_scheduler = self.lr_scheduler
        if for_test:
            for block in p.blocks:
                for op in block.ops:
                    if op.has_attr("is_test"):
                        op._set_attr("is_test", True)
        return p

    def to_string(self, throw_on_error=False, with_details=False):
        """The program as text; ``with_details`` gives skiff's full form (variables with
        their flags, every attribute, each op's source line)."""
        return _C.program_to_text(self.desc) if with_details else program_text(self)

    def __str__(self):
        return program_text(self)

    def __repr__(self):
        return f"<skiff.static.Program with {self.num_blocks} block(s)>"

    def verify(self):
        """Raises skiff.Error describing the first problem of the program."""
        _C.verify_program(self.desc)

    def state_dict(self, mode="all", scope=None):
        """The program's persistable values in ``scope`` (default: the global scope)."""
        scope = scope or global_scope()
        out = {}
        for v in self.list_vars():
            if v.persistable and (mode == "all" or getattr(v, "_is_parameter", False)):
                t = scope._scope.get(v.name)
                if t is not None:
                    out[v.name] = t
        return out

    def set_state_dict(self, state_dict, scope=None):
        scope = scope or global_scope()
        for name, value in state_dict.items():
            scope.set(name, value)


_main = Program()
_startup = Program()


def default_main_program():
    """The program that static-mode calls append ops to."""
    return _main


def default_startup_program():
    """The program that initialises the parameters of the main program."""
    return _startup


@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    """Within it ``main_program`` (and ``startup_program``, when given) are the default
    programs: static-mode calls append to them."""
    global _main, _startup
    if not isinstance(main_program, Program):
        raise TypeError(f"program_guard wants a skiff.static.Program, got "
                        f"{type(main_program).__name__}")
    saved = _main, _startup
    _main = main_program
    if startup_program is not None:
        _startup = startup_program
    try:
        yield
    finally:
        _main, _startup = saved


def _switch_main_program(program):
    """Makes ``program`` the default main program; returns the previous one."""
    global _main
    previous, _main = _main, program
    return previous


def _switch_startup_program(program):
    global _startup
    previous, _startup = _startup, program
    return previous
