"""Eager gradients: skiff.grad (gradients of outputs, leaving .grad untouched) and
autograd.backward (adds them into the leaves' .grad), both walks of the C++ tape."""
from .. import _C
from .._C import Tensor
from ..framework.arguments import ArgumentError, ArgumentTypeError, flag

__all__ = ["grad", "backward"]

# Why no derivative of a gradient can be taken (``what`` names the caller): the tape runs
# grad ops as kernels without recording them, and grad ops have no grad makers (in
# static programs neither).
HIGHER_ORDER_UNSUPPORTED = (
    "{what}: skiff cannot differentiate a gradient (no higher-order derivatives): the "
    "eager tape runs the grad ops without recording them, and grad ops have no gradients "
    "of their own, in eager mode or in a static program")


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
        raise _C.Error(HIGHER_ORDER_UNSUPPORTED.format(what="skiff.grad(create_graph=True)"))
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


