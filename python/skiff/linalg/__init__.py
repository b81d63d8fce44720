"""skiff.linalg (Paddle's paddle.linalg): inverses, determinants, solves, Cholesky, LU and
general and symmetric eigen, QR and singular value decompositions (exact and randomised low-rank) over
batches of matrices, Householder products, norms, covariances, pseudo-inverses, ranks,
condition numbers, matrix exponentials and products."""
from ..tensor.axes import matrix_transpose
from ..tensor.linalg import matmul, norm
from ..tensor.products import cross, vecdot
from .decompositions import (cholesky, cholesky_inverse, cholesky_solve, det, eig, eigh,
                             eigvals, eigvalsh, inv, inverse, qr, slogdet, solve,
                             triangular_solve)
from .householder import householder_product, ormqr
from .lowrank import pca_lowrank, svd_lowrank
from .lu import lu, lu_solve, lu_unpack
from .norms import cond, corrcoef, cov, matrix_norm, vector_norm
from .products import matrix_exp, matrix_power, multi_dot
from .spectral import lstsq, matrix_rank, pinv, svd, svdvals
from .._C import Tensor as _Tensor
from ..framework.tensor_params import check_exports as _check_exports
from ..framework.variable import Variable as _Variable

__all__ = ["cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov", "cross",
           "det", "eig", "eigh", "eigvals", "eigvalsh", "householder_product", "inv", "lstsq", "lu", "lu_solve",
           "lu_unpack", "matmul", "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "ormqr", "pca_lowrank", "pinv", "qr",
           "slogdet", "solve", "svd", "svd_lowrank", "svdvals", "triangular_solve", "vecdot",
           "vector_norm"]

_check_exports(globals())  # the public functions check their Tensor parameters

# Tensor methods of these functions (x.cholesky(), x.solve(y), ...), installed here since
# skiff.tensor, which installs the others, sits below this package.
_METHODS = ["cholesky", "cholesky_inverse", "cholesky_solve", "cond", "corrcoef", "cov",
            "eigvalsh", "householder_product", "inverse", "lstsq", "lu", "lu_unpack",
            "matrix_power", "ormqr", "pca_lowrank", "pinv", "qr", "slogdet", "solve",
            "svd_lowrank"]
for _name in _METHODS:
    setattr(_Tensor, _name, globals()[_name])
    setattr(_Variable, _name, globals()[_name])
