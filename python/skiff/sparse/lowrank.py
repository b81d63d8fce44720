"""pca_lowrank of a sparse matrix: Halko et al.'s randomized range finder, whose products
with the (implicitly centered) matrix are sparse @ dense ones, then an SVD of the small
projected matrix."""
from ..framework import arguments
from ..framework.arguments import ArgumentError
from .. import linalg
from .. import tensor as T
from .matmul import matmul
from .shape import sum, transpose
from .tensor import require_sparse

__all__ = ["pca_lowrank"]


def pca_lowrank(x, q=None, center=True, niter=2, name=None):
    """(U, S, V) of a rank-q approximation of the sparse [M, N] matrix x (its columns
    centered first when ``center``): x ~= U diag(S) V^T."""
    x = require_sparse("pca_lowrank", x)
    if len(x.shape) != 2:
        raise ArgumentError(f"pca_lowrank: x must be a 2-D sparse matrix, got shape {x.shape}")
    m, n = x.shape
    q = min(6, m, n) if q is None else arguments.integer("pca_lowrank", "q", q)
    if not 0 <= q <= min(m, n):
        raise ArgumentError(f"pca_lowrank: q must be in [0, {min(m, n)}], got {q}")
    niter = arguments.integer("pca_lowrank", "niter", niter)
    if niter < 0:
        raise ArgumentError(f"pca_lowrank: niter must be >= 0, got {niter}")
    center = arguments.flag("pca_lowrank", "center", center)
    x_t = transpose(x, [1, 0])
    dtype = x._dtype_name
    mean = T.scale(sum(x, axis=0).to_dense().reshape([1, n]), 1.0 / m) if center else None
    ones = T.ones([m, 1], dtype)

    def times(d):  # (x - 1 mean) @ d
        out = matmul(x, d)
        return out if mean is None else out - T.matmul(ones, T.matmul(mean, d))

    def times_t(d):  # (x - 1 mean)^T @ d
        out = matmul(x_t, d)
        return out if mean is None else out - T.matmul(T.transpose(mean, [1, 0]),
                                                       T.matmul(T.transpose(ones, [1, 0]), d))

    basis = linalg.qr(times(T.randn([n, q], dtype)))[0]
    for _ in range(niter):
        basis = linalg.qr(times_t(basis))[0]
        basis = linalg.qr(times(basis))[0]
    projected = T.transpose(times_t(basis), [1, 0])  # basis^T (x - 1 mean): [q, n]
    u, s, vh = linalg.svd(projected, full_matrices=False)
    return T.matmul(basis, u), s, T.transpose(vh, [1, 0])
