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
from .._C import Tensor as _Tensor
from ..framework.tensor_params import check_exports as _check_exports
from ..framework.variable import Variable as _Variable

__all__ = ["cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "cross", "det", "eigh",
           "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "matrix_transpose", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd",
           "svdvals", "triangular_solve", "vecdot", "vector_norm"]

_check_exports(globals())  # the public functions check their Tensor parameters

# Tensor methods of these functions (x.cholesky(), x.solve(y), ...), installed here since
# skiff.tensor, which installs the others, sits below this package.
_METHODS = ["cholesky", "cholesky_solve", "cond", "corrcoef", "cov", "eigvalsh", "inverse",
            "lstsq", "matrix_power", "pinv", "qr", "slogdet", "solve"]
for _name in _METHODS:
    setattr(_Tensor, _name, globals()[_name])
    setattr(_Variable, _name, globals()[_name])
