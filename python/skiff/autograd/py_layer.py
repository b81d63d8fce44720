"""PyLayer: user-written backwards recorded as tape nodes (the tape lives in C++), the
context that carries saved tensors to them, and saved_tensors_hooks over those tensors."""
from .. import _C
from .._C import Tensor
from ..framework.grad_mode import no_grad
from ..framework.mode import in_dynamic_mode
from ..tensor.creation import zeros

__all__ = ["PyLayer", "PyLayerContext", "Function", "saved_tensors_hooks"]


class saved_tensors_hooks:
    """Within it, every tensor saved for a gradient (by the ops recorded, and by a PyLayer's
    ``ctx.save_for_backward``) is kept as ``pack_hook(t)`` and given back to the backward
    (or by ``ctx.saved_tensor()``) as ``unpack_hook(packed)``."""
    _stack = []

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        saved_tensors_hooks._stack.append(self)
        _C.push_saved_tensors_hooks(self.pack_hook, self.unpack_hook)
        return self

    def __exit__(self, *exc):
        _C.pop_saved_tensors_hooks()
        saved_tensors_hooks._stack.pop()


class PyLayerContext:
    """What a PyLayer's forward hands to its backward: saved tensors and flags."""

    def __init__(self):
        self._saved = None
        self._unpack = None
        self._released = False
        self._non_differentiable = []
        self._not_inplace = []
        self._materialize_grads = True
        self._grad_in_dtype_consistent = True

    def save_for_backward(self, *tensors):
        """Keeps ``tensors`` for the backward (``saved_tensor()`` returns them)."""
        hooks = saved_tensors_hooks._stack[-1] if saved_tensors_hooks._stack else None
        if hooks is None:
            self._saved, self._unpack = tensors, None
        else:
            self._saved = tuple(hooks.pack_hook(t) for t in tensors)
            self._unpack = hooks.unpack_hook

    def saved_tensor(self):
        """The tensors given to ``save_for_backward`` (a tuple)."""
        if self._released:
            raise RuntimeError("PyLayerContext.saved_tensor: the saved tensors were freed by a "
                               "backward without retain_graph=True")
        if self._saved is None:
            return ()
        if self._unpack is None:
            return tuple(self._saved)
        return tuple(self._unpack(p) for p in self._saved)

    def mark_not_inplace(self, *args):
        """Outputs that are inputs returned as they are become new tensors."""
        self._not_inplace.extend(args)

    def mark_non_differentiable(self, *args):
        """These outputs get no gradient (stop_gradient=True)."""
        self._non_differentiable.extend(args)

    def set_materialize_grads(self, value):
        """Whether the backward sees zeros (True, the default) or None for outputs
        that received no gradient."""
        self._materialize_grads = bool(value)

    def set_grad_in_dtype_consistent(self, flag):
        """Whether gradients returned by backward are cast to their input's dtype."""
        self._grad_in_dtype_consistent = bool(flag)


def _tensor_inputs(args, kwargs):
    found = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Tensor):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(x for x in a if isinstance(x, Tensor))
    return found


class PyLayer:
    """A differentiable function with user-written ``forward(ctx, *args, **kwargs)`` and
    ``backward(ctx, *grads)`` (both static methods); call it with ``Layer.apply(...)``."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("PyLayer subclasses must define a static forward(ctx, ...)")

    @staticmethod
    def backward(ctx, *args):
        raise NotImplementedError("PyLayer subclasses must define a static backward(ctx, ...)")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Runs ``forward`` without recording and records one tape node whose backward
        calls ``backward`` with the outputs' gradients."""
        if not in_dynamic_mode():
            raise _C.Error(f"{cls.__name__}.apply: PyLayer runs in eager mode only; a static "
                           "program would differentiate its forward's ops instead of the "
                           "custom backward")
        ctx = PyLayerContext()
        with no_grad():
            result = cls.forward(ctx, *args, **kwargs)
        single = isinstance(result, Tensor)
        outs = [result] if single else list(result) if isinstance(result, (list, tuple)) else None
        if outs is None:
            raise TypeError(f"{cls.__name__}.forward must return a Tensor or a tuple/list of "
                            f"Tensors, got {type(result).__name__}")
        inputs = _tensor_inputs(args, kwargs)
        input_ids = {id(t) for t in inputs}
        non_diff = {id(t) for t in ctx._non_differentiable}
        positions = [i for i, o in enumerate(outs)
                     if isinstance(o, Tensor) and id(o) not in non_diff]
        for i, o in enumerate(outs):
            if not isinstance(o, Tensor):
                continue
            if id(o) in input_ids:
                outs[i] = o = o.detach()  # an input returned as is: a new tensor sharing it
            if i not in positions:
                o.stop_gradient = True
        if _C.is_grad_enabled() and any(not t.stop_gradient for t in inputs):
            _record(cls, ctx, inputs, outs, positions)
        return outs[0] if single else type(result)(outs) if isinstance(result, tuple) else outs


Function = PyLayer


def _record(cls, ctx, inputs, outs, positions):
    all_outs = [o for o in outs if isinstance(o, Tensor)]
    diff = [outs[i] for i in positions]
    shapes = [(list(o.shape), o.dtype) for o in all_outs]
    where = {id(o): k for k, o in enumerate(all_outs)}
    diff_slots = [where[id(o)] for o in diff]
    in_meta = [(list(t.shape), t.dtype) for t in inputs]

    def run_backward(grads):
        full = [None] * len(all_outs)
        for slot, g in zip(diff_slots, grads):
            full[slot] = g
        if ctx._materialize_grads:
            full = [zeros(s, d) if g is None else g for g, (s, d) in zip(full, shapes)]
        result = cls.backward(ctx, *full)
        got = [result] if isinstance(result, Tensor) or result is None else list(result)
        if len(got) != len(inputs):
            raise ValueError(f"{cls.__name__}.backward returned {len(got)} gradients, but "
                             f"forward took {len(inputs)} Tensor inputs")
        for k, (g, (shape, dtype)) in enumerate(zip(got, in_meta)):
            if g is None:
                continue
            if not isinstance(g, Tensor):
                raise TypeError(f"{cls.__name__}.backward: gradient {k} must be a Tensor or "
                                f"None, got {type(g).__name__}")
            if list(g.shape) != shape:
                raise ValueError(f"{cls.__name__}.backward: gradient {k} has shape "
                                 f"{list(g.shape)}, but input {k} has shape {shape}")
            if g.dtype != dtype and ctx._grad_in_dtype_consistent:
                got[k] = g.astype(dtype)
        return got

    def release():
        ctx._saved = None
        ctx._released = True

    _C.record_callback_node(inputs, diff, _Released(run_backward, release),
                            f"PyLayer '{cls.__name__}'")


class _Released:
    """The backward callable a tape node holds; the node drops it after a backward
    without retain_graph, which frees the context's saved tensors."""

    def __init__(self, run, release):
        self.run = run
        self.release = release

    def __call__(self, grads):
        return self.run(grads)

    def __del__(self):
        self.release()
