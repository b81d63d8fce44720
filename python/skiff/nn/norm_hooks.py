"""Reparametrisations of a layer's weight recomputed before each forward (Paddle's
paddle.nn.utils.weight_norm / remove_weight_norm and spectral_norm): the layer trains
new parameters and its weight becomes a tensor derived from them."""
from .. import _C_ops
from ..autograd import no_grad
from ..framework.arguments import ArgumentError, ArgumentTypeError
from ..framework.param import assign_value
from ..tensor import matmul, randn, reshape, sqrt, sum as reduce_sum, transpose
from .layer.layers import Layer

__all__ = ["weight_norm", "remove_weight_norm", "spectral_norm"]


def _weight(fn, layer, name):
    if not isinstance(layer, Layer):
        raise ArgumentTypeError(f"{fn}: layer must be a Layer, got {type(layer).__name__}")
    weight = layer._parameters.get(name)
    if weight is None:
        raise ArgumentError(f"{fn}: {type(layer).__name__} has no parameter {name!r}")
    return weight


def _new_parameter(layer, like, shape, value):
    p = layer.create_parameter([int(s) for s in shape], dtype=like.dtype)
    with no_grad():
        assign_value(p, value, "a reparametrised weight")
    return p


def _norm_except(v, dim):
    """The 2-norm of v over every axis but ``dim`` (all of them for None), kept as
    v's rank with size 1 there, or a 0-d tensor for None."""
    if dim is None:
        return sqrt(reduce_sum(v * v))
    axes = [a for a in range(len(v.shape)) if a != dim]
    return sqrt(reduce_sum(v * v, axis=axes, keepdim=True)) if axes else sqrt(v * v)


class WeightNorm:
    """The pre-forward hook of weight_norm: weight = g * v / |v| (norm over all dims but
    dim)."""

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def compute(self, layer):
        g, v = getattr(layer, self.name + "_g"), getattr(layer, self.name + "_v")
        if self.dim is None:
            return v * (g / _norm_except(v, None))
        view = [1] * len(v.shape)
        view[self.dim] = -1
        return v * (reshape(g, view) / _norm_except(v, self.dim))

    def __call__(self, layer, inputs):
        setattr(layer, self.name, self.compute(layer))


def weight_norm(layer, name="weight", dim=0):
    """Splits layer's parameter ``name`` into a magnitude name_g (norm over every dim but
    ``dim``; a scalar for None or -1) and a direction name_v; returns the layer."""
    fn = "weight_norm"
    for hook in getattr(layer, "_forward_pre_hooks", {}).values():
        if isinstance(hook, WeightNorm) and hook.name == name:
            raise ArgumentError(f"{fn}: {name!r} of {type(layer).__name__} already has "
                                f"weight_norm")
    weight = _weight(fn, layer, name)
    rank = len(weight.shape)
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int)):
        raise ArgumentTypeError(f"{fn}: dim must be an int or None, got {type(dim).__name__}")
    if dim == -1 or dim is None:
        dim = None
    elif not -rank <= dim < rank:
        raise ArgumentError(f"{fn}: dim must lie in [{-rank}, {rank}), got {dim}")
    else:
        dim = dim % rank
    hook = WeightNorm(name, dim)
    with no_grad():
        norm = _norm_except(weight, dim)
        g = reshape(norm, [int(weight.shape[dim])]) if dim is not None else norm
    del layer._parameters[name]
    layer.add_parameter(name + "_v", _new_parameter(layer, weight, weight.shape, weight))
    layer.add_parameter(name + "_g", _new_parameter(layer, weight, g.shape, g))
    setattr(layer, name, hook.compute(layer))
    layer.register_forward_pre_hook(hook)
    return layer


def remove_weight_norm(layer, name="weight"):
    """Undoes weight_norm: the current g * v / |v| becomes the parameter ``name`` again."""
    for key, hook in list(layer._forward_pre_hooks.items()):
        if isinstance(hook, WeightNorm) and hook.name == name:
            with no_grad():
                value = hook.compute(layer)
            like = layer._parameters[name + "_v"]
            del layer._parameters[name + "_g"], layer._parameters[name + "_v"]
            layer._buffers.pop(name, None)
            layer.add_parameter(name, _new_parameter(layer, like, value.shape, value))
            del layer._forward_pre_hooks[key]
            return layer
    raise ArgumentError(f"remove_weight_norm: weight_norm of {name!r} not found in "
                        f"{type(layer).__name__}")


def _unit(v, eps):
    return v / (sqrt(reduce_sum(v * v)) + eps)


class SpectralNormHook:
    """The pre-forward hook of spectral_norm: in training, n_power_iterations steps
    v = W^T u / |.|, u = W v / |.| update the buffers; weight = weight_orig / (u^T W v)."""

    def __init__(self, name, n_power_iterations, eps, dim):
        self.name, self.iterations, self.eps, self.dim = name, n_power_iterations, eps, dim

    def matrix(self, weight):
        if self.dim:
            perm = [self.dim] + [a for a in range(len(weight.shape)) if a != self.dim]
            weight = transpose(weight, perm)
        return reshape(weight, [int(weight.shape[0]), -1])

    def __call__(self, layer, inputs):
        orig = getattr(layer, self.name + "_orig")
        u, v = getattr(layer, self.name + "_u"), getattr(layer, self.name + "_v")
        mat = self.matrix(orig)
        if layer.training:
            with no_grad():
                fixed = mat.detach()
                for _ in range(self.iterations):
                    v_new = _unit(matmul(u, fixed), self.eps)
                    u_new = _unit(matmul(fixed, v_new), self.eps)
                    _C_ops.assign(v_new, out=[v])
                    _C_ops.assign(u_new, out=[u])
        sigma = reduce_sum(u * matmul(mat, v))
        setattr(layer, self.name, orig / sigma)


def spectral_norm(layer, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divides layer's parameter ``name`` by its largest singular value (estimated by power
    iteration from buffers name_u, name_v) before each forward; trains name_orig. dim:
    the axis taken as rows (None: 1 for a transposed convolution, else 0)."""
    fn = "spectral_norm"
    weight = _weight(fn, layer, name)
    if isinstance(n_power_iterations, bool) or not isinstance(n_power_iterations, int) or \
            n_power_iterations < 1:
        raise ArgumentError(f"{fn}: n_power_iterations must be a positive int, got "
                            f"{n_power_iterations!r}")
    if eps <= 0:
        raise ArgumentError(f"{fn}: eps must be positive, got {eps}")
    rank = len(weight.shape)
    if dim is None:
        dim = 1 if "Transpose" in type(layer).__name__ and rank > 1 else 0
    if not -rank <= dim < rank:
        raise ArgumentError(f"{fn}: dim must lie in [{-rank}, {rank}), got {dim}")
    hook = SpectralNormHook(name, n_power_iterations, eps, dim % rank)
    rows, cols = (int(d) for d in hook.matrix(weight).shape)
    dtype = weight.dtype
    del layer._parameters[name]
    layer.add_parameter(name + "_orig", _new_parameter(layer, weight, weight.shape, weight))
    layer.register_buffer(name + "_u", _unit(randn([rows], dtype=dtype), eps))
    layer.register_buffer(name + "_v", _unit(randn([cols], dtype=dtype), eps))
    with no_grad():
        setattr(layer, name, weight.detach().clone())
    getattr(layer, name).stop_gradient = False
    layer.register_forward_pre_hook(hook)
    return layer
