"""skiff.linalg (Paddle's paddle.linalg): inverses, determinants, solves, Cholesky and
symmetric eigen decompositions over batches of matrices, norms, covariances and matrix
products."""
from ..tensor.axes import matrix_transpose
from ..tensor.linalg import matmul, norm
from ..tensor.products import cross, vecdot
from .decompositions import (cholesky, cholesky_solve, det, eigh, eigvalsh, inv, inverse,
                             qr, slogdet, solve, triangular_solve)
from .norms import corrcoef, cov, matrix_norm, vector_norm
from .products import matrix_power, multi_dot

__all__ = ["cholesky", "cholesky_solve", "corrcoef", "cov", "cross", "det", "eigh",
           "eigvalsh", "inv", "matmul", "matrix_norm", "matrix_power", "matrix_transpose",
           "multi_dot", "norm", "qr", "slogdet", "solve", "triangular_solve", "vecdot",
           "vector_norm"]
