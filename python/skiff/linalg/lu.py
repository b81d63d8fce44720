"""The LU factorisation with partial pivoting (Paddle's paddle.linalg.lu: LAPACK's packed
factors and 1-based pivots), its unpacking into P, L, U, and solves with it."""
from .. import _C_ops
from .._C import Error
from ..framework import arguments
from ..framework.tensor_params import FLOATING, accepts
from ..tensor.linalg import matmul
from .decompositions import triangular_solve

__all__ = ["lu", "lu_unpack", "lu_solve"]


def _check_matrices(fn, param, x):
    if len(x.shape) < 2:
        raise Error(f"{fn}: {param} must be a batch of matrices [..., m, n], got "
                    f"{list(x.shape)}")


@accepts(x=FLOATING)
def lu(x, pivot=True, get_infos=False, name=None):
    """(LU, pivots) or (LU, pivots, infos) with x = P L U per matrix: LU packs L's strictly
    lower part (L has a unit diagonal) and U's upper part; pivots [..., min(m, n)] (int32)
    the 1-based rows swapped in at each step; infos [...] 0, or the 1-based index of the
    first zero pivot of a singular matrix."""
    _check_matrices("lu", "x", x)
    out, pivots, infos = _C_ops.lu(x, pivot=arguments.flag("lu", "pivot", pivot))
    if arguments.flag("lu", "get_infos", get_infos):
        return out, pivots, infos
    return out, pivots


@accepts(x=FLOATING)
def lu_unpack(x, y, unpack_ludata=True, unpack_pivots=True, name=None):
    """(P, L, U) from lu's packed factors x and pivots y: x = P L U with P [..., m, m], L
    [..., m, k] unit lower and U [..., k, n] upper; P is None without unpack_pivots, L and U
    None without unpack_ludata."""
    _check_matrices("lu_unpack", "x", x)
    arguments.dtype_in("lu_unpack", "y", arguments.tensor("lu_unpack", "y", y), ["int32"])
    k = min(x.shape[-2], x.shape[-1])
    if list(y.shape) != list(x.shape[:-2]) + [k]:
        raise Error(f"lu_unpack: y (the pivots) must be [..., {k}] with x's batch dims "
                    f"{list(x.shape[:-2])}, got {list(y.shape)}")
    p, low, up = _C_ops.lu_unpack(x, y)
    if not arguments.flag("lu_unpack", "unpack_ludata", unpack_ludata):
        low = up = None
    if not arguments.flag("lu_unpack", "unpack_pivots", unpack_pivots):
        p = None
    return p, low, up


@accepts(b=FLOATING, lu=FLOATING)
def lu_solve(b, lu, pivots, trans="N", name=None):
    """The solution of A @ out = b (trans 'N') or A^T @ out = b ('T', and 'C' for real A)
    where (lu, pivots) is A's LU factorisation; batch dims broadcast."""
    if trans not in ("N", "T", "C"):
        raise arguments.ArgumentError(f"lu_solve: trans must be 'N', 'T' or 'C', got {trans!r}")
    _check_matrices("lu_solve", "lu", lu)
    _check_matrices("lu_solve", "b", b)
    n = lu.shape[-1]
    if lu.shape[-2] != n:
        raise Error(f"lu_solve: lu must hold square matrices [..., n, n], got {list(lu.shape)}")
    if b.shape[-2] != n:
        raise Error(f"lu_solve: b must have {n} rows to match lu {list(lu.shape)}, got "
                    f"{list(b.shape)}")
    if arguments.dtype_name_of(b) != arguments.dtype_name_of(lu):
        raise arguments.ArgumentTypeError(
            f"lu_solve: b and lu must share a dtype, got {arguments.dtype_name_of(b)} and "
            f"{arguments.dtype_name_of(lu)}")
    p, low, up = lu_unpack(lu, pivots)
    if trans == "N":  # A = P L U: out = U^-1 L^-1 P^T b
        y = triangular_solve(low, matmul(p, b, transpose_x=True), upper=False,
                             unitriangular=True)
        return triangular_solve(up, y, upper=True)
    # A^T = U^T L^T P^T: out = P L^-T U^-T b
    y = triangular_solve(up, b, upper=True, transpose=True)
    y = triangular_solve(low, y, upper=False, transpose=True, unitriangular=True)
    return matmul(p, y)
