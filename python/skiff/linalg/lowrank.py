"""Randomised low-rank singular value decompositions and PCA (Paddle's
paddle.linalg.svd_lowrank and pca_lowrank), by Halko, Martinsson and Tropp's range finder:
a Gaussian sketch, power iterations re-orthonormalised by QR, then the SVD of the small
projected matrix."""
from .._C import Error
from ..framework import arguments
from ..framework.tensor_params import FLOATING, accepts
from ..tensor.axes import matrix_transpose
from ..tensor.creation import zeros
from ..tensor.linalg import matmul
from ..tensor.random import randn
from ..tensor.stat import mean
from ..tensor.math import subtract
from .decompositions import qr
from .spectral import svd

__all__ = ["svd_lowrank", "pca_lowrank"]

_MAX_NITER = 1000


def _rank(fn, x, q):
    """q checked against x's matrices: an int in [0, min(m, n)], min(6, m, n) when None."""
    shape = list(x.shape)
    if len(shape) < 2:
        raise Error(f"{fn}: x must be a batch of matrices [..., m, n], got {shape}")
    limit = min(shape[-2], shape[-1])
    if q is None:
        return min(6, limit)
    q = arguments.integer(fn, "q", q)
    if not 0 <= q <= limit:
        raise arguments.ArgumentError(f"{fn}: q(={q}) must be a non-negative integer not "
                                      f"greater than min(m, n)={limit}")
    return q


def _range_basis(a, q, niter):
    """An orthonormal basis [..., m, q] of (most of) the range of a [..., m, n]."""
    shape = list(a.shape)
    sketch = randn(shape[:-2] + [shape[-1], q], dtype=arguments.dtype_name_of(a))
    basis, _ = qr(matmul(a, sketch))
    for _ in range(niter):
        basis, _ = qr(matmul(a, basis, transpose_x=True))
        basis, _ = qr(matmul(a, basis))
    return basis


@accepts(x=FLOATING)
def svd_lowrank(x, q=None, niter=2, M=None, name=None):
    """(U [..., m, q], S [..., q], V [..., n, q]) with x - M ~= U diag(S) V^T, a randomised
    rank-q approximation (q = min(6, m, n) by default) refined by niter power iterations."""
    q = _rank("svd_lowrank", x, q)
    niter = arguments.integer("svd_lowrank", "niter", niter)
    if not 0 <= niter <= _MAX_NITER:
        raise arguments.ArgumentError(
            f"svd_lowrank: niter must be in [0, {_MAX_NITER}], got {niter} (power iterations "
            f"converge in a handful; more only repeat the work)")
    a = x if M is None else subtract(x, arguments.tensor("svd_lowrank", "M", M))
    if q == 0:  # nothing to find (an empty matrix, or q=0): empty factors, no work per row
        batch, (m, n) = list(a.shape[:-2]), a.shape[-2:]
        name = arguments.dtype_name_of(a)
        return (zeros(batch + [m, 0], name), zeros(batch + [0], name),
                zeros(batch + [n, 0], name))
    tall = a.shape[-2] >= a.shape[-1]
    if not tall:  # work on the tall transpose: a^T = U S V^T gives a = V S U^T
        a = matrix_transpose(a)
    basis = _range_basis(a, q, niter)
    u, s, vh = svd(matmul(basis, a, transpose_x=True))
    u, v = matmul(basis, u), matrix_transpose(vh)
    return (u, s, v) if tall else (v, s, u)


@accepts(x=FLOATING)
def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """svd_lowrank of x less its column means (with center): U, S and V [..., n, q] hold
    the principal directions of x's rows as the columns of V."""
    q = _rank("pca_lowrank", x, q)
    if arguments.flag("pca_lowrank", "center", center):
        x = subtract(x, mean(x, axis=-2, keepdim=True))
    return svd_lowrank(x, q=q, niter=niter)
