"""Vector and matrix norms over chosen axes (Paddle's paddle.linalg.vector_norm and
matrix_norm), and covariance / correlation matrices (cov, corrcoef)."""
from .. import _C_ops
from .._C import Error
from ..framework import arguments
from ..framework.core import apply
from ..framework.tensor_params import FLOATING, accepts
from ..tensor.linalg import _vector_norm, matmul, norm
from ..tensor.axes import diagonal
from ..tensor.manipulation import unsqueeze
from ..tensor.math import abs, clip, sqrt
from ..tensor.manipulation import moveaxis
from .decompositions import inv
from .spectral import _check_matrices, _reduce as _reduce_last, svdvals

__all__ = ["vector_norm", "matrix_norm", "cond", "cov", "corrcoef"]

_INF = float("inf")


def _reduce(op, x, axis, keepdim):
    axes = arguments.axes("vector_norm", axis, len(x.shape), scalar=True)
    return apply(op, x, attrs={"dim": axes, "keep_dim": bool(keepdim), "reduce_all": False})


@accepts(x=FLOATING)
def vector_norm(x, p=2.0, axis=None, keepdim=False, name=None):
    """The p-norm of x's entries over ``axis`` (all of x when None): p = 0 counts nonzeros,
    inf / -inf give the largest / smallest magnitude, others (sum |x|^p)^(1/p)."""
    if isinstance(p, str) or not isinstance(p, (int, float)):
        raise TypeError(f"vector_norm: p must be a number, got {p!r}")
    p = float(p)
    if axis is not None and not isinstance(axis, int):
        axis = list(axis)
    if p == 0:
        nonzero = _C_ops.cast(_C_ops.not_equal(x, _C_ops.fill_any_like(
            x, value=0.0)),out_dtype=x.dtype.name)
        if axis is None:
            return _C_ops.reduce_sum(nonzero, dim=[], keep_dim=bool(keepdim), reduce_all=True)
        return _reduce("reduce_sum", nonzero, axis, keepdim)
    return _vector_norm(x, p, axis, keepdim)


def _matrix_axes(fn, x, axis):
    """``axis`` as two different axes of x."""
    axes = arguments.axes(fn, axis, len(x.shape))
    if len(axes) != 2:
        raise arguments.ArgumentError(f"{fn}: axis must be a pair of dims, got {axis!r}")
    return axes


@accepts(x=FLOATING)
def matrix_norm(x, p="fro", axis=[-2, -1], keepdim=False, name=None):
    """The matrix norm of the matrices in x's dims ``axis``: 'fro', 'nuc' (sum of singular
    values), 2 / -2 (largest / smallest singular value), 1 / -1 (max / min column sum of
    magnitudes), inf / -inf (max / min row sum)."""
    a, b = _matrix_axes("matrix_norm", x, axis)
    if p == "fro":
        return norm(x, "fro", [a, b], keepdim)
    if p == "nuc" or p in (2, -2):
        s = svdvals(moveaxis(x, [a, b], [-2, -1]))
        out = (_C_ops.reduce_sum(s, dim=[-1], keep_dim=False, reduce_all=False) if p == "nuc" else
               _reduce("reduce_max" if p == 2 else "reduce_min", s, -1, False))
        if keepdim:
            for d in sorted((a, b)):
                out = unsqueeze(out, d)
        return out
    if p in (1, -1, _INF, -_INF):
        # the sum over one dim, then the max / min over the other
        inner, outer = (a, b) if p in (1, -1) else (b, a)
        sums = _reduce("reduce_sum", abs(x), inner, True)
        out = _reduce("reduce_max" if p > 0 else "reduce_min", sums, outer, True)
        return out if keepdim else _reduce("reduce_sum", out, [a, b], False)
    raise ValueError(f"matrix_norm: p must be 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                     f"got {p!r}")


def _observations(fn, x, rowvar):
    rank = len(x.shape)
    if rank not in (1, 2):
        raise Error(f"{fn}: x must be 1-D or 2-D, got {list(x.shape)}")
    if rank == 1:
        return _C_ops.reshape(x, shape=[1, -1])
    return x if rowvar else _C_ops.transpose(x, axis=[1, 0])


@accepts(x=FLOATING)
def cov(x, rowvar=True, ddof=True, fweights=None, aweights=None, name=None):
    """The covariance matrix of x's variables (rows, or columns with rowvar=False),
    optionally weighted by integer frequencies and float observation weights; ddof
    divides by N - 1 (or the weighted equivalent)."""
    obs = _observations("cov", x, rowvar)
    n = obs.shape[1]
    weights = None
    for label, w in (("fweights", fweights), ("aweights", aweights)):
        if w is None:
            continue
        if len(w.shape) != 1 or (n >= 0 and w.shape[0] != n):
            raise Error(f"cov: {label} must be 1-D with {n} entries, got {list(w.shape)}")
        w = _C_ops.cast(w, out_dtype=obs.dtype.name)
        weights = w if weights is None else weights * w
    if weights is None:
        mean = _C_ops.reduce_mean(obs, dim=[1], keep_dim=True, reduce_all=False)
        centred = obs - mean
        fact = float(n - (1 if ddof else 0))
        out = matmul(centred, centred, transpose_y=True) / fact
    else:
        w_sum = weights.sum()
        mean = (obs * weights).sum(axis=1, keepdim=True) / w_sum
        centred = obs - mean
        if not ddof:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - 1.0
        else:
            aw = _C_ops.cast(aweights, out_dtype=obs.dtype.name)
            fact = w_sum - (weights * aw).sum() / w_sum
        out = matmul(centred * weights, centred, transpose_y=True) / fact
    if len(x.shape) == 1:
        return _C_ops.reshape(out, shape=[])
    return out


@accepts(x=FLOATING)
def corrcoef(x, rowvar=True, name=None):
    """Pearson correlation coefficients of x's variables (rows, or columns with
    rowvar=False), clipped to [-1, 1]."""
    c = cov(x, rowvar)
    if len(x.shape) == 1:
        return c / c
    d = sqrt(diagonal(c))
    out = c / unsqueeze(d, 1) / unsqueeze(d, 0)
    return clip(out, -1.0, 1.0)


@accepts(x=FLOATING)
def cond(x, p=None, name=None):
    """The condition number of each matrix of x in norm p: None / 2 (largest / smallest
    singular value), -2 (its inverse), or 'fro', 'nuc', 1, -1, inf, -inf for square x
    (norm(x) * norm(inv(x)))."""
    _check_matrices("cond", x)
    if p is None or p in (2, -2):
        s = svdvals(x)
        if s.shape[-1] == 0:  # an empty matrix: 0, as Paddle's and torch's
            return _reduce_last("reduce_sum", s, False)
        big, small = _reduce_last("reduce_max", s, False), _reduce_last("reduce_min", s, False)
        return small / big if p == -2 else big / small
    if p not in ("fro", "nuc", 1, -1, float("inf"), float("-inf")):
        raise ValueError(f"cond: p must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf, "
                         f"got {p!r}")
    if x.shape[-1] != x.shape[-2]:
        raise Error(f"cond: p={p!r} needs square matrices, got {list(x.shape)}")
    return matrix_norm(x, p) * matrix_norm(inv(x), p)
