"""Gradients in eager mode: skiff.grad, no_grad and friends, PyLayer (user-written
backwards as tape nodes) and jacobian (the tape lives in C++)."""
from . import _C
from ._C import Tensor
from .framework.arguments import ArgumentError, ArgumentTypeError, flag
from .framework.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .framework.mode import in_dynamic_mode
from .tensor.creation import eye, ones, zeros
from .tensor.manipulation import stack

__all__ = ["grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "backward",
           "jacobian", "PyLayer", "PyLayerContext", "Function", "saved_tensors_hooks"]


def _as_list(x, fn="grad", param="outputs", none_ok=False):
    """x (a Tensor, or a list or tuple of them; None entries where ``none_ok``) as a list
    (None stays None); errors name the public function ``fn`` and its ``param``."""
    if x is None:
        return None
    if isinstance(x, Tensor):
        return [x]
    if not isinstance(x, (list, tuple)):
        raise ArgumentTypeError(f"{fn}: {param} must be a Tensor or a list of Tensors, got "
                                f"{type(x).__name__}")
    for i, t in enumerate(x):
        if not (isinstance(t, Tensor) or (none_ok and t is None)):
            raise ArgumentTypeError(f"{fn}: {param}[{i}] must be a Tensor, got "
                                    f"{type(t).__name__}")
    return list(x)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None):
    """The gradients of ``outputs`` with respect to ``inputs`` (a list, one per input),
    leaving every ``.grad`` untouched. ``create_graph`` (higher-order) is not supported."""
    if create_graph:
        raise _C.Error("skiff.grad(create_graph=True): higher-order eager gradients are not "
                       "supported; build the program statically and differentiate it twice")
    outs = _as_list(outputs, "grad", "outputs")
    ins = _as_list(inputs, "grad", "inputs")
    gouts = _as_list(grad_outputs, "grad", "grad_outputs", none_ok=True)
    if outs is None or ins is None:
        raise ArgumentTypeError("grad: outputs and inputs must be Tensors or lists of them, "
                                "got None")
    return _C.grad(outs, ins, gouts, flag("grad", "retain_graph", retain_graph),
                   flag("grad", "allow_unused", allow_unused))


def backward(tensors, grad_tensors=None, retain_graph=False):
    """Adds the gradients of ``tensors`` (seeded by ``grad_tensors``, ones where None)
    into the ``.grad`` of every leaf they depend on."""
    ts = _as_list(tensors, "autograd.backward", "tensors")
    if ts is None:
        raise ArgumentTypeError("autograd.backward: tensors must be a Tensor or a list of "
                                "Tensors, got None")
    gs = _as_list(grad_tensors, "autograd.backward", "grad_tensors", none_ok=True)
    if gs is not None and len(gs) != len(ts):
        raise ArgumentError(f"autograd.backward: {len(gs)} grad_tensors for {len(ts)} tensors")
    _C.backward(ts, gs, flag("autograd.backward", "retain_graph", retain_graph))


class saved_tensors_hooks:
    """Within it, tensors a PyLayer saves with ``ctx.save_for_backward`` are stored as
    ``pack_hook(t)`` and given back by ``ctx.saved_tensor()`` as ``unpack_hook(packed)``."""
    _stack = []

    def __init__(self, pack_hook, unpack_hook):
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("saved_tensors_hooks: pack_hook and unpack_hook must be callable")
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        saved_tensors_hooks._stack.append(self)
        return self

    def __exit__(self, *exc):
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


class Jacobian:
    """The Jacobian of ``ys`` with respect to ``xs`` (what ``jacobian`` returns): shape
    [M, N] (dims of 0-d tensors left out), [B, M, N] when batched; index it (``J[:]``)
    to get Tensors. Rows come from skiff.grad, on first indexing."""

    def __init__(self, ys, xs, is_batched=False):
        lo, hi = (1, 2) if is_batched else (0, 1)
        for name, t in (("ys", ys), ("xs", xs)):
            if not isinstance(t, Tensor):
                raise TypeError(f"jacobian: {name} must be a Tensor or a tuple of Tensors, got "
                                f"{type(t).__name__}")
            if not lo <= t.ndim <= hi:
                raise ValueError(f"jacobian: {name}.ndim should be {lo} or {hi} when "
                                 f"is_batched={is_batched} but got {t.ndim}")
        self._ys, self._xs, self._batched = ys, xs, is_batched
        self._value = None
        shape = [ys.shape[0]] if is_batched else []
        if ys.ndim == hi:
            shape.append(ys.shape[-1])
        if xs.ndim == hi:
            shape.append(xs.shape[-1])
        self.shape = shape

    def __getitem__(self, index):
        if self._value is None:
            self._value = self._evaluate()
        return self._value[index]

    def _evaluate(self):
        ys, xs = self._ys, self._xs
        hi = 2 if self._batched else 1

        def row(seed):
            g = _C.grad([ys], [xs], None if seed is None else [seed], True, True)[0]
            return zeros(xs.shape, xs.dtype) if g is None else g

        if ys.ndim < hi:
            return row(None)
        m = ys.shape[-1]
        basis = eye(m, dtype=ys.dtype)
        seeds = [basis[i] * _ones_like(ys) if self._batched else basis[i] for i in range(m)]
        return stack([row(s) for s in seeds], axis=1 if self._batched else 0)


def _ones_like(t):
    return ones(t.shape, t.dtype)


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian of ``ys`` with respect to ``xs``: a Jacobian (evaluated when indexed),
    or tuples of them when ``ys`` or ``xs`` are tuples. ``batch_axis`` is None or 0."""
    if batch_axis not in (None, 0):
        raise ValueError(f"jacobian: batch_axis should be None or 0, but got {batch_axis}")
    batched = batch_axis == 0
    many_y, many_x = isinstance(ys, (list, tuple)), isinstance(xs, (list, tuple))
    if many_y and many_x:
        return tuple(tuple(Jacobian(y, x, batched) for x in xs) for y in ys)
    if many_y:
        return tuple(Jacobian(y, xs, batched) for y in ys)
    if many_x:
        return tuple(Jacobian(ys, x, batched) for x in xs)
    return Jacobian(ys, xs, batched)
