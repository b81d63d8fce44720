"""paddle.nn.utils for skiff: gradient clipping over a parameter list, flattening
parameters to one vector and back, all through skiff ops; and the weight
reparametrisations of norm_hooks (weight_norm, spectral_norm)."""
import math

from .. import _C
from .. import _C_ops
from .._C import Tensor
from ..autograd import no_grad
from ..framework import arguments
from ..framework.param import assign_value
from ..framework.arguments import dtype_name_of
from ..tensor.creation import full
from ..tensor.manipulation import concat, slice
from ..tensor.math import cast, scale

from .norm_hooks import remove_weight_norm, spectral_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "weight_norm", "remove_weight_norm", "spectral_norm"]


def _grads(fn, parameters):
    """The gradients the parameters hold (see _parameter_list), for ``fn``."""
    return [p.grad for p in _parameter_list(fn, parameters) if p.grad is not None]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients of ``parameters`` in place so that their joint norm is at
    most ``max_norm`` (by max_norm / (norm + 1e-6) when above it); returns the norm."""
    grads = _grads("clip_grad_norm_", parameters)
    max_norm = arguments.number("clip_grad_norm_", "max_norm", max_norm)
    norm_type = arguments.number("clip_grad_norm_", "norm_type", norm_type)
    if not grads:
        return full([], 0.0, "float32")
    with no_grad():
        if math.isinf(norm_type):
            parts = [
                _C_ops.reduce_max(_C_ops.abs(g), dim=[], keep_dim=False, reduce_all=True)
                for g in grads
            ]
            total = parts[0]
            for part in parts[1:]:
                total = _C_ops.elementwise_max(total, part)
        elif norm_type == 2.0:
            total = _C_ops.sqrt(_C_ops.sum([_C_ops.squared_l2_norm(g) for g in grads]))
        else:
            powered = [
                _C_ops.reduce_sum(_C_ops.pow(_C_ops.abs(g), factor=norm_type), dim=[],
                                  keep_dim=False, reduce_all=True)
                for g in grads
            ]
            total = _C_ops.pow(_C_ops.sum(powered), factor=1.0 / norm_type)
        total = _C_ops.reshape(total, shape=[])
        if error_if_nonfinite and not math.isfinite(float(total.numpy())):
            raise _C.Error(f"clip_grad_norm_: the total gradient norm of order {norm_type} is "
                           f"not finite")
        coef = _C_ops.clip(_C_ops.elementwise_div(full([], max_norm, dtype_name_of(total)),
                                   scale(total, 1.0, 1e-6)), max=1.0)
        for g in grads:
            _C_ops.elementwise_mul(g, cast(coef, dtype_name_of(g)), out=[g])
    return total


def clip_grad_value_(parameters, clip_value):
    """Clips every gradient of ``parameters`` to [-clip_value, clip_value] in place."""
    clip_value = arguments.number("clip_grad_value_", "clip_value", clip_value)
    with no_grad():
        for g in _grads("clip_grad_value_", parameters):
            _C_ops.clip(g, min=-clip_value, max=clip_value, out=[g])


def _parameter_list(fn, parameters):
    """``parameters`` as a list of Tensors: one Tensor is a list of one (as torch's), not
    something to iterate row by row."""
    if isinstance(parameters, Tensor):
        return [parameters]
    if isinstance(parameters, (str, bytes, dict)) or not hasattr(parameters, "__iter__"):
        raise arguments.ArgumentTypeError(f"{fn}: parameters must be a Tensor or an iterable "
                                          f"of Tensors, got {type(parameters).__name__}")
    items = list(parameters)
    for i, p in enumerate(items):
        if not isinstance(p, Tensor):
            raise arguments.ArgumentTypeError(f"{fn}: parameters[{i}] must be a Tensor, got "
                                              f"{type(p).__name__}")
    return items


def parameters_to_vector(parameters, name=None):
    """The parameters flattened and joined into one 1-D tensor."""
    items = _parameter_list("parameters_to_vector", parameters)
    return concat([_C_ops.reshape(p, shape=[-1]) for p in items], 0)


def vector_to_parameters(vec, parameters, name=None):
    """Copies consecutive pieces of the 1-D ``vec`` into ``parameters`` (their shapes)."""
    offset = 0
    parameters = _parameter_list("vector_to_parameters", parameters)
    if len(vec.shape) != 1:
        raise _C.Error(f"vector_to_parameters: vec must be 1-D, got shape {list(vec.shape)}")
    with no_grad():
        for p in parameters:
            n = 1
            for s in p.shape:
                n *= int(s)
            piece = _C_ops.reshape(slice(vec, [0], [offset], [offset + n]), shape=list(p.shape))
            assign_value(p, piece, f"vector_to_parameters: parameter {p.name!r}")
            offset += n
    if offset != int(vec.shape[0]):
        raise _C.Error(f"vector_to_parameters: the vector has {int(vec.shape[0])} entries, the "
                       f"parameters {offset}")
