"""One traced program of a to_static function: tracing (static mode, inputs declared as
data variables, eager parameters captured as persistable variables), registration as
a program function, and calls through the run_program op."""
import weakref

from .. import _C
from .._C import Tensor
from ..framework import dtype as dt
from ..framework.core import eager_op
from ..framework.mode import mode
from .static_control import ArrayList, UndefinedVar, flatten, is_static_var, unflatten
from .. import static
from ..tensor.creation import zeros

Error = _C.Error
_FLOATS = ("float32", "float64", "bfloat16")


def _is_spec(value):
    return type(value).__name__ == "InputSpec"


def _spec_shape(spec):
    return [-1 if s is None else int(s) for s in spec.shape]


def _key(value):
    if isinstance(value, Tensor):
        return ("T", tuple(value.shape), value._dtype_name)
    if _is_spec(value):
        return ("S", tuple(_spec_shape(value)), dt.dtype_name(value.dtype))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _key(v)) for k, v in sorted(value.items(), key=str)))
    try:
        hash(value)
        return ("P", type(value).__name__, value)
    except TypeError:
        return ("id", id(value))


def _with_spec(args, spec):
    """Positional arguments with InputSpecs standing for the Tensors they describe."""
    if spec is None:
        return list(args)
    out = list(spec)
    for k in range(len(out), len(args)):
        out.append(args[k])
    return out


def flatten_leaves(value):
    """The leaves of nested lists, tuples and dicts (dicts by sorted key)."""
    leaves = []
    flatten(value, leaves)
    return leaves


def signature_key(args, kwargs, spec, instance):
    training = getattr(instance, "training", None)
    return (_key(_with_spec(args, spec)), _key(kwargs), training)


def _spec_of(value):
    """(shape, dtype) of an InputSpec or a Tensor, else None."""
    if _is_spec(value):
        return _spec_shape(value), dt.dtype_name(value.dtype)
    if isinstance(value, Tensor):
        return list(value.shape), value._dtype_name
    return None


def specs_compatible(given, declared):
    """Whether the InputSpecs (or Tensors) ``given`` fit ``declared``: as many, each of
    the same dtype and rank, sizes equal where neither is -1."""
    given, declared = _tensor_leaves(list(given), []), _tensor_leaves(list(declared), [])
    if len(given) != len(declared):
        return False
    for a, b in zip(map(_spec_of, given), map(_spec_of, declared)):
        if a[1] != b[1] or len(a[0]) != len(b[0]):
            return False
        if any(x != y and x >= 0 and y >= 0 for x, y in zip(a[0], b[0])):
            return False
    return True


def _tensor_leaves(value, out):
    if isinstance(value, Tensor) or _is_spec(value):
        out.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _tensor_leaves(v, out)
    elif isinstance(value, dict):
        for k in sorted(value, key=str):
            _tensor_leaves(value[k], out)
    return out


class ConcreteProgram:
    """A traced program and how to call it: input variables, captured tensors,
    outputs (with Python constants kept aside) and the registered function."""

    @classmethod
    def trace(cls, static_fn, args, kwargs, spec):
        self = cls()
        self.main, self.startup = static.Program(), static.Program()
        self.input_names = []
        self.input_specs = []

        def declare(value):
            if isinstance(value, Tensor) or _is_spec(value):
                shape = _spec_shape(value) if _is_spec(value) else list(value.shape)
                dtype = dt.dtype_name(value.dtype) if _is_spec(value) else value._dtype_name
                name = getattr(value, "name", None) if _is_spec(value) else None
                if not name or name in self.input_names or name.startswith("_jst_"):
                    name = f"_jst_input_{len(self.input_names)}"
                var = static.data(name, shape, dtype)
                if dtype in ("float32", "float64", "bfloat16"):
                    var.stop_gradient = False
                self.input_names.append(name)
                self.input_specs.append((shape, dtype))
                return var
            if isinstance(value, (list, tuple)):
                return type(value)(declare(v) for v in value) if type(value) in (list, tuple) \
                    else type(value)(*(declare(v) for v in value))
            if isinstance(value, dict):
                return {k: declare(value[k]) for k in sorted(value, key=str)}
            return value

        previous = mode.static
        mode.static = True
        try:
            with static.program_guard(self.main, self.startup):
                static_args = [declare(a) for a in _with_spec(args, spec)]
                static_kwargs = {k: declare(v) for k, v in sorted(kwargs.items())}
                outs = static_fn.converted()(*static_args, **static_kwargs)
            self.inputs = [static_fn._instance] if static_fn._instance is not None else []
            self.inputs += static_args + list(static_kwargs.values())
            self.outputs = outs if isinstance(outs, (list, tuple)) else [outs]
        finally:
            mode.static = previous
        if self.startup.desc.num_ops(0):
            raise Error(f"to_static: {static_fn.__qualname__} creates parameters while it is "
                        "traced; create layers and parameters outside the converted function")
        self._set_outputs(outs, static_fn)
        return self

    def _set_outputs(self, outs, static_fn):
        leaves = []
        self.out_spec = flatten(outs, leaves)
        self.out_leaves = leaves
        self.output_names = []
        for leaf in leaves:
            if isinstance(leaf, UndefinedVar):  # (as Python's `return name` would fail)
                raise UnboundLocalError(f"local variable '{leaf.name}' is used before a value "
                                        f"is assigned to it (returned by "
                                        f"{static_fn.__qualname__})")
            if isinstance(leaf, ArrayList) or (is_static_var(leaf) and
                                               leaf.type == "tensor_array"):
                raise Error(f"to_static: {static_fn.__qualname__} returns a list grown in a "
                            "loop on a Tensor (a tensor array); return skiff.stack(xs) or "
                            "skiff.concat(xs) instead")
            if is_static_var(leaf):
                self.output_names.append(leaf.name)
        captured = self.main._captured
        self.captured_names = list(captured)
        self.captured = [captured[n] for n in self.captured_names]
        written = set()
        desc = self.main.desc
        for b in range(desc.num_blocks):
            for i in range(desc.num_ops(b)):
                written.update(desc.op(b, i).output_names)
        self.written_back = [n for n in self.captured_names if n in written]
        names = self.input_names + self.captured_names
        if not names:  # a function of nothing: feed a dummy so the op has an input
            desc.add_var(0, "_jst_dummy", "float32", [], False, True)
            names = ["_jst_dummy"]
            self.dummy = True
        else:
            self.dummy = False
        outputs = self.output_names + self.written_back
        self._n_outputs = len(self.output_names)
        self._out_is_var = [is_static_var(v) for v in leaves]
        # A single Tensor (1) or a flat list of Tensors (2) comes back without rebuilding.
        self._plain_outputs = 1 if self.out_spec is None and self._out_is_var == [True] else \
            2 if self.out_spec is not None and self.out_spec[0] is list and \
            self.out_spec[1] == [None] * len(leaves) and all(self._out_is_var) else 0
        if not outputs:
            self.function_id = None
            return
        self.function_id = _C.register_program_function(desc, names, outputs)
        weakref.finalize(self, _C.release_program_function, self.function_id)
        self._ops = {}

    @property
    def program(self):
        return self.main

    @property
    def main_program(self):
        """The traced program."""
        return self.main

    @property
    def startup_program(self):
        """Its startup program (empty: parameters are the layers' eager Tensors)."""
        return self.startup

    def flat_inputs(self):
        """The input variables, in the order of ``inputs`` (nested ones flattened)."""
        return [v for v in flatten_leaves(self.inputs) if is_static_var(v)]

    def flat_outputs(self):
        """The output variables, in the order of ``outputs`` (nested ones flattened)."""
        return [v for v in flatten_leaves(self.outputs) if is_static_var(v)]

    def _op(self, mask):
        op = self._ops.get(mask)
        if op is None:
            n_out = len(self.output_names) + len(self.written_back)
            op = self._ops[mask] = eager_op(
                "run_program", {"function": self.function_id, "wants_grad": list(mask)},
                [n_out, 1])
        return op

    def run(self, args, kwargs):
        """Runs the program on the Tensors among ``args``/``kwargs``."""
        tensors = _tensor_leaves(list(args), [])
        tensors = _tensor_leaves({k: kwargs[k] for k in sorted(kwargs)}, tensors)
        self._check_inputs(tensors)
        return self.call(tensors)

    def call(self, tensors):
        """Runs the program on its Tensor inputs (checked by the caller)."""
        if self.function_id is None:
            return unflatten(self.out_spec, self.out_leaves)
        inputs = tensors + self.captured if self.captured else tensors
        if self.dummy:
            inputs = [zeros([], "float32")]
        mask = ()
        if _C.is_grad_enabled():
            mask = tuple([int(not t.stop_gradient and t._dtype_name in _FLOATS) for t in inputs])
            if 1 not in mask:
                mask = ()
        op = self._ops.get(mask) or self._op(mask)
        outs = op(inputs)[0]
        n = self._n_outputs
        if self.written_back:
            for name, value in zip(self.written_back, outs[n:]):
                self.main._captured[name]._set_value(value)
        if self._plain_outputs:
            return outs[0] if self._plain_outputs == 1 else outs[:n]
        it = iter(outs[:n])
        leaves = [next(it) if is_var else v for v, is_var in zip(self.out_leaves, self._out_is_var)]
        return unflatten(self.out_spec, leaves)

    def _check_inputs(self, tensors):
        if len(tensors) != len(self.input_specs):
            raise Error(f"to_static: the program was traced for {len(self.input_specs)} "
                        f"Tensor inputs, got {len(tensors)}")
        for k, (t, (shape, dtype)) in enumerate(zip(tensors, self.input_specs)):
            if not isinstance(t, Tensor):
                raise Error(f"to_static: input {k} must be a Tensor, got {type(t).__name__}")
            ok = t._dtype_name == dtype and len(t.shape) == len(shape) and all(
                s < 0 or s == d for s, d in zip(shape, t.shape))
            if not ok:
                raise Error(f"to_static: input {k} is {t._dtype_name}{list(t.shape)} but the "
                            f"input spec says {dtype}{shape}")
