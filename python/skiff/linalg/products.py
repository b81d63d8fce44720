"""Matrix powers, exponentials and chained products (Paddle's paddle.linalg.matrix_power,
matrix_exp, multi_dot)."""
from .. import _C_ops
from .._C import Error
from ..framework import arguments
from ..framework.tensor_params import FLOATING, TENSORS, accepts
from ..tensor.linalg import matmul
from .decompositions import inv
from ..tensor.creation import eye
from ..tensor.manipulation import expand

__all__ = ["matrix_power", "matrix_exp", "multi_dot"]


@accepts(x=FLOATING)
def matrix_exp(x, name=None):
    """exp(x) = I + x + x^2 / 2! + ... per square matrix of x."""
    shape = list(x.shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise Error(f"matrix_exp: the last 2 dims of x must be square, got {shape}")
    return _C_ops.matrix_exp(x)


def matrix_power(x, n, name=None):
    """x @ x @ ... (n times) per square matrix; n = 0 gives identities, n < 0 powers of
    the inverse."""
    shape = list(x.shape)
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise Error(f"matrix_power: x must be a batch of square matrices, got {shape}")
    n = arguments.integer("matrix_power", "n", n)
    if n == 0:
        return expand(eye(shape[-1], dtype=x.dtype), shape)
    base = inv(x) if n < 0 else x
    result, power = None, base
    k = abs(n)
    while k:  # square-and-multiply
        if k & 1:
            result = power if result is None else matmul(result, power)
        k >>= 1
        if k:
            power = matmul(power, power)
    return result


@accepts(x=TENSORS)
def multi_dot(x, name=None):
    """The product of the matrices in list x (the first may be 1-D as a row, the last
    1-D as a column), left to right."""
    if not isinstance(x, (list, tuple)) or len(x) < 2:
        raise ValueError("multi_dot: x must be a list of at least 2 tensors")
    out = x[0]
    for m in x[1:]:
        out = matmul(out, m)
    return out
