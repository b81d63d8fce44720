"""Functions of the singular value decomposition (Paddle's paddle.linalg): svd, svdvals,
pinv, matrix_rank, cond, lstsq."""
from .. import _C_ops
from .._C import Error
from ..framework.core import apply
from ..framework.tensor_params import FLOATING, accepts
from ..framework.mode import mode
from ..tensor.linalg import matmul
from ..tensor.manipulation import unsqueeze
from ..tensor.math import abs
from ..tensor.scalars import as_operands
from .decompositions import eigh, eigvalsh

__all__ = ["svd", "svdvals", "pinv", "matrix_rank", "lstsq"]

_EPS = {"float32": 1.1920928955078125e-07, "float64": 2.220446049250313e-16}


def _check_matrices(fn, x):
    if len(x.shape) < 2:
        raise Error(f"{fn}: x must be a batch of matrices [..., m, n], got {list(x.shape)}")


def svd(x, full_matrices=False, name=None):
    """(U, S, VH) with x = U diag(S) VH per matrix, S descending; U and VH square with
    full_matrices, else U [..., m, k] and VH [..., k, n], k = min(m, n)."""
    _check_matrices("svd", x)
    return _C_ops.svd(x, full_matrices=bool(full_matrices))


@accepts(x=FLOATING)
def svdvals(x, name=None):
    """The singular values of each matrix of x, descending: [..., min(m, n)]."""
    return svd(x)[1]


def _reduce(op, x, keepdim=True):
    return apply(op, x, attrs={"dim": [-1], "keep_dim": keepdim, "reduce_all": False})


def _largest(s, keepdim=True):
    """The largest along the last dim of s (singular values or eigenvalue magnitudes, none
    negative), or 0 where there is none (an empty matrix): a sum over the empty dim."""
    return _reduce("reduce_sum" if s.shape[-1] == 0 else "reduce_max", s, keepdim)


def _invert_above(s, cutoff):
    """1 / s where |s| > cutoff, else 0."""
    keep = _C_ops.greater_than(*as_operands(abs(s), cutoff))
    safe = _C_ops.where(keep, s, _C_ops.fill_any_like(s, value=1.0))
    return _C_ops.where(keep, 1.0 / safe, _C_ops.fill_any_like(s, value=0.0))


@accepts(x=FLOATING)
def pinv(x, rcond=1e-15, hermitian=False, name=None):
    """The Moore-Penrose pseudo-inverse of each matrix of x, dropping singular values (or
    eigenvalue magnitudes with hermitian) at most rcond times the largest."""
    _check_matrices("pinv", x)
    if hermitian:
        w, v = eigh(x)
        cutoff = _largest(abs(w)) * rcond
        return matmul(v * unsqueeze(_invert_above(w, cutoff), -2), v, transpose_y=True)
    u, s, vh = svd(x)
    cutoff = _largest(s) * rcond
    return matmul(vh * unsqueeze(_invert_above(s, cutoff), -1), u, transpose_x=True,
                  transpose_y=True)


@accepts(x=FLOATING)
def matrix_rank(x, tol=None, hermitian=False, atol=None, rtol=None, name=None):
    """The number of singular values (eigenvalue magnitudes with hermitian) above the
    threshold: tol, else max(atol, rtol * largest), by default eps * max(m, n) * largest;
    int64 [...]."""
    _check_matrices("matrix_rank", x)
    s = abs(eigvalsh(x)) if hermitian else svdvals(x)
    if tol is not None:
        threshold = _per_matrix(tol)
    else:
        if atol is None and rtol is None:
            rtol = _EPS[x.dtype.name] * max(x.shape[-2], x.shape[-1])
        threshold = _largest(s) * _per_matrix(rtol or 0.0)
        if atol is not None:
            threshold = _C_ops.elementwise_max(*as_operands(threshold, _per_matrix(atol)))
    above = _C_ops.greater_than(*as_operands(s, threshold))
    return _reduce("reduce_sum", _C_ops.cast(above, out_dtype="int64"), False)


def _per_matrix(value):
    """A float, or a tensor of per-matrix values [...] as [..., 1]."""
    return float(value) if isinstance(value, (int, float)) else unsqueeze(value, -1)


def _empty(dtype_name):
    return _C_ops.fill_constant(shape=[0], value=0.0, dtype=dtype_name)


def lstsq(x, y, rcond=None, driver=None, name=None):
    """The least-squares (minimum-norm) solution of x @ out = y per matrix, singular
    values at most rcond (default eps * max(m, n)) times the largest dropped, with
    (solution, residuals, rank, singular_values) as Paddle's driver (default 'gelsy')
    returns them: residuals (squared, per column) only when m > n at full rank."""
    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise ValueError(f"lstsq: driver must be 'gels', 'gelsy', 'gelsd', 'gelss' or "
                         f"None, got {driver!r}")
    driver = driver or "gelsy"
    _check_matrices("lstsq", x)
    if len(y.shape) != len(x.shape) or (x.shape[-2] >= 0 and y.shape[-2] != x.shape[-2]):
        raise Error(f"lstsq: y must be [..., {x.shape[-2]}, k] with x's batch dims, got x "
                    f"{list(x.shape)} and y {list(y.shape)}")
    m, n = x.shape[-2], x.shape[-1]
    if rcond is None:
        rcond = _EPS[x.dtype.name] * max(m, n)
    u, s, vh = svd(x)
    cutoff = _largest(s) * float(rcond)
    solution = matmul(vh * unsqueeze(_invert_above(s, cutoff), -1),
                      matmul(u, y, transpose_x=True), transpose_x=True)
    dtype = x.dtype.name
    rank = None
    if driver != "gels":
        above = _C_ops.greater_than(*as_operands(s, cutoff))
        rank = _reduce("reduce_sum", _C_ops.cast(above, out_dtype="int32"), False)
    residuals = _empty(dtype)
    full_rank = rank is None or mode.static or bool((rank.numpy() == n).all())
    if driver != "gelsy" and m > n and full_rank:
        diff = matmul(x, solution) - y
        residuals = _C_ops.reduce_sum(diff * diff, dim=[-2], keep_dim=False, reduce_all=False)
    if rank is None:
        rank = _empty("int64")
    values = s if driver in ("gelsd", "gelss") else _empty(dtype)
    return solution, residuals, rank, values
