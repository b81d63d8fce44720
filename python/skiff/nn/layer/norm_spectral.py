"""paddle.nn.SpectralNorm: a weight divided by its largest singular value, estimated by
power iteration from the layer's vectors weight_u and weight_v."""
import numpy as np

from ... import _C
from ... import _C_ops
from ...tensor.linalg import matmul
from ...tensor.math import multiply, scale
from ..initializer import Normal
from .layers import Layer

__all__ = ["SpectralNorm"]


def _normalized(v, eps):
    norm = _C_ops.sqrt(_C_ops.reduce_sum(multiply(v, v), dim=[], keep_dim=False, reduce_all=True))
    return _C_ops.elementwise_div(v, scale(norm, 1.0, eps))


class SpectralNorm(Layer):
    """forward(weight) = weight / sigma, with weight viewed as [shape[dim], rest] and
    sigma = u^T W v after ``power_iters`` steps v = W^T u / |.|, u = W v / |.| from
    weight_u and weight_v (which stay as they are); u and v carry no gradient."""

    def __init__(self, weight_shape, dim=0, power_iters=1, eps=1e-12, dtype="float32"):
        super().__init__()
        self._weight_shape = [int(s) for s in weight_shape]
        if not self._weight_shape or int(np.prod(self._weight_shape)) <= 0:
            raise ValueError(f"SpectralNorm: weight_shape must have positive dims, got "
                             f"{list(weight_shape)}")
        rank = len(self._weight_shape)
        if dim not in (0, 1) or dim >= rank:
            raise ValueError(f"SpectralNorm: dim must be 0 or 1 (below the rank {rank} of "
                             f"weight_shape), got {dim}")
        if power_iters < 0:
            raise ValueError(f"SpectralNorm: power_iters must be >= 0, got {power_iters}")
        self._dim, self._power_iters, self._eps, self._dtype = dim, power_iters, eps, dtype
        h = self._weight_shape[self._dim]
        w = int(np.prod(self._weight_shape)) // h
        self.weight_u = self.create_parameter([h], dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_u.stop_gradient = True
        self.weight_v = self.create_parameter([w], dtype=dtype,
                                              default_initializer=Normal(0.0, 1.0))
        self.weight_v.stop_gradient = True

    def forward(self, x):
        shape = [int(s) for s in x.shape]
        if shape != self._weight_shape:
            raise _C.Error(f"SpectralNorm: the weight has shape {shape}, the layer was made "
                           f"for {self._weight_shape}")
        dim = self._dim
        perm = [dim] + [i for i in range(len(shape)) if i != dim]
        mat = _C_ops.reshape(_C_ops.transpose(x, axis=perm) if dim else x, shape=[shape[dim], -1])
        fixed = mat.detach()
        u, v = (
            _C_ops.unsqueeze(self.weight_u, axes=[1]),
            _C_ops.unsqueeze(self.weight_v, axes=[1]),
        )
        for _ in range(self._power_iters):
            v = _normalized(matmul(fixed, u, transpose_x=True), self._eps)
            u = _normalized(matmul(fixed, v), self._eps)
        u, v = u.detach(), v.detach()
        sigma = _C_ops.reduce_sum(multiply(u, matmul(mat, v)), dim=[], keep_dim=False,
                                  reduce_all=True)
        return _C_ops.elementwise_div(x, sigma)

    def extra_repr(self):
        return (f"weight_shape={self._weight_shape}, dim={self._dim}, "
                f"power_iters={self._power_iters}, eps={self._eps}")
