"""Matrix products and transposes (Paddle's paddle.tensor.linalg)."""
from ..framework.core import apply, eager_op
from ..framework.mode import mode
from .scalars import is_tensor

__all__ = ["matmul", "mm", "bmm", "dot", "t", "outer", "mv", "norm", "dist", "cdist"]

_matmul = eager_op("matmul")


def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product over the last two dims, batch dims broadcast; 1-D operands act as
    a row (x) or a column (y) and that dim is dropped."""
    if not (transpose_x or transpose_y) and not mode.static:
        return _matmul(x, y)
    return apply("matmul", x, y, attrs={"trans_x": bool(transpose_x),
                                        "trans_y": bool(transpose_y)})


def mm(input, mat2, name=None):
    return matmul(input, mat2)


def bmm(x, y, name=None):
    """Batched product of [B, M, K] and [B, K, N]."""
    if len(x.shape) != 3 or len(y.shape) != 3:
        from .._C import Error
        raise Error(f"bmm: x and y must be 3-D, got {list(x.shape)} and {list(y.shape)}")
    return matmul(x, y)


def dot(x, y, name=None):
    """The inner product of 1-D x and y (a 0-d tensor), or row by row for 2-D ([N])."""
    prod = apply("elementwise_mul", x, y)
    return apply("reduce_sum", prod, attrs={"dim": [-1], "keep_dim": False,
                                            "reduce_all": False})


def t(input, name=None):
    """The transpose of a matrix (a 0-d or 1-D tensor is returned as is)."""
    rank = len(input.shape)
    if rank > 2:
        from .._C import Error
        raise Error(f"t: input must have at most 2 dims, got {list(input.shape)}")
    if rank < 2:
        return input
    return apply("transpose", input, attrs={"axis": [1, 0]})


def outer(x, y, name=None):
    """x (flattened) as a column times y (flattened) as a row: [len(x), len(y)]."""
    col = apply("reshape", x, attrs={"shape": [-1, 1]})
    row = apply("reshape", y, attrs={"shape": [1, -1]})
    return apply("elementwise_mul", col, row)


def mv(x, vec, name=None):
    """The matrix-vector product of [M, N] x and [N] vec."""
    return matmul(x, vec)


def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """The p-norm over ``axis`` (all of x when None): 'fro' and 2 give the root of the
    sum of squares, 1 the sum of magnitudes, inf/-inf the largest/smallest magnitude,
    any other number (sum |x|^p)^(1/p)."""
    from .math import abs, pow, sqrt, square
    from .reduction import _axes
    dims, reduce_all = _axes(axis)
    attrs = {"dim": dims, "keep_dim": bool(keepdim), "reduce_all": reduce_all}
    if p == "fro" or p == 2 or p == 2.0:
        return sqrt(apply("reduce_sum", square(x), attrs=attrs))
    if is_tensor(p):
        p = float(p.item())
    p = float(p)
    if p == float("inf"):
        return apply("reduce_max", abs(x), attrs=attrs)
    if p == float("-inf"):
        return apply("reduce_min", abs(x), attrs=attrs)
    if p == 1.0:
        return apply("reduce_sum", abs(x), attrs=attrs)
    return pow(apply("reduce_sum", pow(abs(x), p), attrs=attrs), 1.0 / p)


def _p_norm_all(d, p, axis):
    """The p-norm of d over ``axis`` (all dims when None), p = 0 counting nonzeros."""
    from .math import abs
    if p == 0:
        nonzero = apply("cast", apply("not_equal", d, apply("fill_any_like", d, attrs={
            "value": 0.0})), attrs={"out_dtype": d.dtype.name})
        dims = [] if axis is None else [axis]
        return apply("reduce_sum", nonzero, attrs={"dim": dims, "keep_dim": False,
                                                   "reduce_all": axis is None})
    if p == float("inf") or p == float("-inf"):
        return norm(d, p, axis)
    if p == 1:
        return norm(abs(d), 1.0, axis)
    return norm(d, 2 if p == 2 else p, axis)


def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast) over all its entries, as a 0-d tensor: p = 0
    counts nonzeros, inf/-inf give the largest/smallest magnitude."""
    return _p_norm_all(apply("elementwise_sub", x, y), float(p), None)


def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distances between the rows of x [..., P, M] and of y [..., R, M]:
    [..., P, R] (batch dims broadcast)."""
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1]:
        from .._C import Error
        raise Error(f"cdist: x and y must be [..., P, M] and [..., R, M], got "
                    f"{list(x.shape)} and {list(y.shape)}")
    rows = apply("unsqueeze", x, attrs={"axes": [len(x.shape) - 1]})
    cols = apply("unsqueeze", y, attrs={"axes": [len(y.shape) - 2]})
    return _p_norm_all(apply("elementwise_sub", rows, cols), float(p), -1)
