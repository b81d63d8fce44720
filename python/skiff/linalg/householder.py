"""Products of Householder reflectors as geqrf stores them (Paddle's
paddle.linalg.householder_product and ormqr), composed from differentiable ops."""
from .._C import Error
from ..framework import arguments
from ..framework.tensor_params import FLOATING, accepts
from ..tensor.creation import eye, tril
from ..tensor.linalg import matmul
from ..tensor.manipulation import expand, slice, unsqueeze
from ..tensor.math import add, multiply, subtract

__all__ = ["householder_product", "ormqr"]


def _check_reflectors(fn, x, tau):
    shape, tshape = list(x.shape), list(tau.shape)
    if len(shape) < 2:
        raise Error(f"{fn}: x must be a batch of matrices [..., m, n], got {shape}")
    if len(tshape) != len(shape) - 1 or tshape[:-1] != shape[:-2]:
        raise Error(f"{fn}: tau must be [..., k] with x's batch dims {shape[:-2]}, got "
                    f"{tshape}")
    if tshape[-1] > shape[-1]:
        raise Error(f"{fn}: tau has {tshape[-1]} reflectors but x only {shape[-1]} columns")
    if arguments.dtype_name_of(x) != arguments.dtype_name_of(tau):
        raise arguments.ArgumentTypeError(
            f"{fn}: x and tau must share a dtype, got {arguments.dtype_name_of(x)} and "
            f"{arguments.dtype_name_of(tau)}")


@accepts(x=FLOATING, tau=FLOATING)
def householder_product(x, tau, name=None):
    """The first n columns of H_1 H_2 ... H_k per matrix, H_i = I - tau_i v_i v_i^T with
    v_i = (0, ..., 0, 1, x[i+1:, i]): x [..., m, n] (m >= n), tau [..., k], k <= n."""
    _check_reflectors("householder_product", x, tau)
    m, n = x.shape[-2], x.shape[-1]
    if m < n:
        raise Error(f"householder_product: x must have at least as many rows as columns, got "
                    f"{list(x.shape)}")
    reflectors = _reflectors(x)
    q = expand(eye(m, n, dtype=arguments.dtype_name_of(x)), list(x.shape))
    for i in reversed(range(tau.shape[-1])):  # Q = H_1 (H_2 (... (H_k E)))
        q = _reflect_left(q, reflectors, tau, i, transpose=False)
    return q


def _reflectors(x):
    """The vectors v_i as the columns of x's strictly lower part with ones on the diagonal."""
    m, n = x.shape[-2], x.shape[-1]
    return add(tril(x, -1), eye(m, n, dtype=arguments.dtype_name_of(x)))


def _column(v, tau, i):
    """(v_i [..., m, 1], tau_i [..., 1, 1])."""
    rank = len(v.shape)
    col = slice(v, [rank - 1], [i], [i + 1])
    t = unsqueeze(slice(tau, [rank - 2], [i], [i + 1]), -1)
    return col, t


def _reflect_left(y, v, tau, i, transpose):
    """H_i y = y - tau_i v_i (v_i^T y) (H_i is symmetric: transpose is the same)."""
    col, t = _column(v, tau, i)
    return subtract(y, multiply(t, matmul(col, matmul(col, y, transpose_x=True))))


def _reflect_right(y, v, tau, i):
    """y H_i = y - tau_i (y v_i) v_i^T."""
    col, t = _column(v, tau, i)
    return subtract(y, multiply(t, matmul(matmul(y, col), col, transpose_y=True)))


@accepts(x=FLOATING, tau=FLOATING, y=FLOATING)
def ormqr(x, tau, y, left=True, transpose=False, name=None):
    """op(Q) @ y (left) or y @ op(Q), op(Q) = Q or Q^T, where Q = householder_product(x,
    tau) [..., m, n] as Paddle multiplies it."""
    _check_reflectors("ormqr", x, tau)
    left = arguments.flag("ormqr", "left", left)
    transpose = arguments.flag("ormqr", "transpose", transpose)
    m, n = x.shape[-2], x.shape[-1]
    if left:
        need, got, where = (m if transpose else n), y.shape[-2], "rows"
    else:
        need, got, where = (n if transpose else m), y.shape[-1], "columns"
    if got != need:
        raise Error(f"ormqr: y must have {need} {where} for {'Q^T' if transpose else 'Q'} "
                    f"of x {list(x.shape)} on the {'left' if left else 'right'}, got "
                    f"{list(y.shape)}")
    if m == n:  # Q is square: apply the reflectors one by one, as LAPACK's ormqr
        v = _reflectors(x)
        k = tau.shape[-1]
        # Q y = H_1 (... (H_k y)); Q^T y = H_k (... (H_1 y)); y Q = ((y H_1) ...) H_k
        order = range(k) if transpose == left else reversed(range(k))
        for i in order:
            y = _reflect_left(y, v, tau, i, transpose) if left else _reflect_right(y, v, tau, i)
        return y
    q = householder_product(x, tau)
    if left:
        return matmul(q, y, transpose_x=transpose)
    return matmul(y, q, transpose_y=transpose)
