"""skiff.linalg (Paddle's paddle.linalg): inverses, determinants, solves, Cholesky and
symmetric eigen, QR and singular value decompositions over batches of matrices, norms,
covariances, pseudo-inverses, ranks, condition numbers and matrix products."""
from ..tensor.axes import matrix_transpose
from ..tensor.linalg import matmul, norm
from ..tensor.products import cross, vecdot
from .decompositions import (cholesky, cholesky_solve, det, eigh, eigvalsh, inv, inverse,
                             qr, slogdet, solve, triangular_solve)
from .norms import cond, corrcoef, cov, matrix_norm, vector_norm
from .products import matrix_power, multi_dot
from .spectral import lstsq, matrix_rank, pinv, svd, svdvals
from ..framework.tensor_params import check_exports as _check_exports

__all__ = ["cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "cross", "det", "eigh",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "triangular_solve", "vecdot", "vector_norm"]

_check_exports(globals())  # the public functions check their Tensor parameters
