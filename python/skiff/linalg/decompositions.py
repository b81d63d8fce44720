"""Matrix inverses, determinants, solves and factorisations over the last two dims
(Paddle's paddle.linalg): inv, det, slogdet, solve, triangular_solve, cholesky,
cholesky_solve, cholesky_inverse, eig, eigvals, eigh, eigvalsh, qr."""
from .. import _C_ops
from .._C import Error
from ..framework import arguments
from ..framework.core import apply
from ..framework.tensor_params import FLOATING, accepts
from ..tensor.joining import broadcast_shape
from ..tensor.manipulation import expand, stack, unsqueeze, squeeze
from ..tensor.axes import matrix_transpose
from ..tensor.creation import eye
from ..tensor.linalg import matmul

__all__ = ["inv", "inverse", "det", "slogdet", "solve", "triangular_solve", "cholesky",
           "cholesky_solve", "cholesky_inverse", "eig", "eigvals", "eigh", "eigvalsh", "qr"]


def _check_square(fn, x):
    shape = list(x.shape)
    if len(shape) < 2 or (shape[-1] >= 0 and shape[-2] >= 0 and shape[-1] != shape[-2]):
        raise Error(f"{fn}: x must be a batch of square matrices [..., n, n], got {shape}")


@accepts(x=FLOATING)
def inv(x, name=None):
    """The inverse of each square matrix of x; a singular matrix is an error."""
    _check_square("inv", x)
    return _C_ops.inverse(x)


inverse = inv


@accepts(x=FLOATING)
def det(x, name=None):
    """The determinant of each square matrix of x: shape x.shape[:-2]."""
    _check_square("det", x)
    return _C_ops.determinant(x)


def slogdet(x, name=None):
    """sign and log|det| of each square matrix of x, stacked: shape [2, *x.shape[:-2]]."""
    _check_square("slogdet", x)
    sign, log_abs = _C_ops.slogdet(x)
    return stack([sign, log_abs], axis=0)


def _broadcast_batches(fn, x, y):
    """x [..., n, n] and y [..., n, k] expanded to one batch shape."""
    if len(x.shape) == len(y.shape) and list(x.shape[:-2]) == list(y.shape[:-2]):
        return x, y
    try:
        batch = broadcast_shape(list(x.shape[:-2]), list(y.shape[:-2]))
    except Exception as e:
        raise Error(f"{fn}: the batch dims of x {list(x.shape)} and y {list(y.shape)} "
                    f"do not broadcast") from e
    return (expand(x, list(batch) + list(x.shape[-2:])),
            expand(y, list(batch) + list(y.shape[-2:])))


def _solve_with(fn, op, x, y, attrs):
    _check_square(fn, x)
    vector = len(y.shape) == 1 or (len(y.shape) == len(x.shape) - 1 and
                                   list(y.shape) == list(x.shape[:-1]))
    if vector:
        y = unsqueeze(y, -1)
    if y.shape[-2] >= 0 and x.shape[-1] >= 0 and y.shape[-2] != x.shape[-1]:
        raise Error(f"{fn}: y must have {x.shape[-1]} rows to match x {list(x.shape)}, "
                    f"got {list(y.shape)}")
    x, y = _broadcast_batches(fn, x, y)
    out = apply(op, x, y, attrs=attrs)
    return squeeze(out, -1) if vector else out


def solve(x, y, left=True, name=None):
    """The solution of x @ out = y (left) or out @ x = y (left=False) per matrix; y may
    be a vector per batch; batch dims broadcast."""
    if left:
        return _solve_with("solve", "solve", x, y, None)
    return matrix_transpose(solve(matrix_transpose(x), matrix_transpose(y)))


def triangular_solve(x, y, upper=True, transpose=False, unitriangular=False, name=None):
    """The solution of op(x) @ out = y reading x's upper (or lower) triangle only;
    op(x) = x^T with transpose, a unit diagonal with unitriangular."""
    return _solve_with("triangular_solve", "triangular_solve", x, y,
                       {"upper": bool(upper), "transpose": bool(transpose),
                        "unitriangular": bool(unitriangular)})


def cholesky(x, upper=False, name=None):
    """The Cholesky factor L (x = L L^T; U = L^T with upper) of each symmetric positive
    definite matrix of x, read from its lower triangle."""
    _check_square("cholesky", x)
    return _C_ops.cholesky(x, upper=bool(upper))


@accepts(x=FLOATING)
def cholesky_solve(x, y, upper=False, name=None):
    """The solution of A @ out = x where y is A's Cholesky factor (lower, or upper)."""
    first = triangular_solve(y, x, upper=upper, transpose=upper)
    return triangular_solve(y, first, upper=upper, transpose=not upper)


@accepts(x=FLOATING)
def cholesky_inverse(x, upper=False, name=None):
    """The inverse of A = L L^T (or U^T U with upper) from its Cholesky factor x, a
    square 2-D matrix."""
    shape = list(x.shape)
    if len(shape) != 2:
        raise Error(f"cholesky_inverse: x must be a 2-D matrix, got {shape}")
    if shape[0] != shape[1]:
        raise Error(f"cholesky_inverse: x must be a square matrix, got {shape}")
    upper = arguments.flag("cholesky_inverse", "upper", upper)
    ident = eye(shape[0], dtype=x.dtype.name)
    # A^-1 = L^-T L^-1 (lower), U^-1 U^-T (upper)
    inv_factor = triangular_solve(x, ident, upper=upper)
    if upper:
        return matmul(inv_factor, inv_factor, transpose_y=True)
    return matmul(inv_factor, inv_factor, transpose_x=True)


def _check_uplo(fn, UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"{fn}: UPLO must be 'L' or 'U', got {UPLO!r}")


def _check_eigh_dtype(fn, x):
    name = arguments.dtype_name_of(arguments.tensor(fn, "x", x))
    if name not in ("float32", "float64", "complex64", "complex128"):
        raise arguments.ArgumentTypeError(f"{fn}: x must be a float32, float64, complex64 or "
                                          f"complex128 Tensor, got {name}")


def eigh(x, UPLO="L", name=None):
    """(eigenvalues ascending, eigenvectors as columns) of each symmetric (complex:
    Hermitian) matrix of x, read from its lower ('L') or upper ('U') triangle; the
    eigenvalues are real."""
    _check_uplo("eigh", UPLO)
    _check_eigh_dtype("eigh", x)
    _check_square("eigh", x)
    return _C_ops.eigh(x, UPLO=UPLO)


def eigvalsh(x, UPLO="L", name=None):
    """The eigenvalues (ascending, real) of each symmetric or Hermitian matrix of x."""
    _check_eigh_dtype("eigvalsh", x)
    return eigh(x, UPLO)[0]


def eig(x, name=None):
    """(eigenvalues, eigenvectors as columns) of each general square matrix of x, complex
    (complex64 for float32 input, complex128 for float64); each eigenvector has unit norm
    and its largest component real. Not differentiable."""
    _check_square("eig", x)
    return _C_ops.eig(x)


def eigvals(x, name=None):
    """The eigenvalues of each general square matrix of x (complex; see eig)."""
    return eig(x)[0]


def qr(x, mode="reduced", name=None):
    """The QR factorisation of each [m, n] matrix of x: (Q, R) with Q [..., m, k] and R
    [..., k, n], k = min(m, n) ('reduced'), Q [..., m, m] ('complete'), or R alone ('r')."""
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    if len(x.shape) < 2:
        raise Error(f"qr: x must be a batch of matrices [..., m, n], got {list(x.shape)}")
    q, r = _C_ops.qr(x, mode=mode)
    return r if mode == "r" else (q, r)
