"""Matrix products, transposes and norms (Paddle's paddle.tensor.linalg), and matrices
built around diagonals and powers: diag_embed, diagflat, block_diag, vander; renorm."""
from .. import _C_ops
from .._C import Error
from ..framework import arguments
from ..framework.core import eager_op
from ..framework.tensor_params import FLOATING, TENSOR, TENSORS, accepts, self_checked
from ..framework.mode import mode
from .complex_math import complex_matmul, is_complex_value
from .scalars import is_tensor
from .math import abs as tensor_abs, pow as tensor_pow, sqrt, square
from .reduction import _axes
from .creation import _positions, to_tensor
from .manipulation import diag
from .scalars import dtype_name_of
from .scalars import constant

__all__ = ["matmul", "mm", "bmm", "dot", "t", "outer", "mv", "norm", "dist", "cdist", "pdist",
           "diag_embed", "diagflat", "block_diag", "vander", "renorm", "renorm_"]

_matmul = eager_op("matmul")


@self_checked
def matmul(x, y, transpose_x=False, transpose_y=False, name=None):
    """Matrix product over the last two dims, batch dims broadcast; 1-D operands act as
    a row (x) or a column (y) and that dim is dropped."""
    if not (transpose_x or transpose_y) and not mode.static:
        try:
            return _matmul(x, y)
        except Error:
            _check_operands(x, y)
            if not (is_complex_value(x) or is_complex_value(y)):
                raise
    _check_operands(x, y)
    if is_complex_value(x) or is_complex_value(y):
        return complex_matmul(lambda a, b: _C_ops.matmul(
            a, b, trans_x=bool(transpose_x), trans_y=bool(transpose_y)), x, y)
    return _C_ops.matmul(x, y, trans_x=bool(transpose_x), trans_y=bool(transpose_y))


def _check_operands(x, y):
    arguments.tensor("matmul", "x", x)
    arguments.tensor("matmul", "y", y)


@accepts(mat2=TENSOR)
def mm(input, mat2, name=None):
    return matmul(input, mat2)


def bmm(x, y, name=None):
    """Batched product of [B, M, K] and [B, K, N]."""
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise Error(f"bmm: x and y must be 3-D, got {list(x.shape)} and {list(y.shape)}")
    return matmul(x, y)


def dot(x, y, name=None):
    """The inner product of 1-D x and y (a 0-d tensor), or row by row for 2-D ([N])."""
    prod = _C_ops.elementwise_mul(x, y)
    return _C_ops.reduce_sum(prod, dim=[-1], keep_dim=False, reduce_all=False)


def t(input, name=None):
    """The transpose of a matrix (a 0-d or 1-D tensor is returned as is)."""
    rank = len(input.shape)
    if rank > 2:
        raise Error(f"t: input must have at most 2 dims, got {list(input.shape)}")
    if rank < 2:
        return input
    return _C_ops.transpose(input, axis=[1, 0])


def outer(x, y, name=None):
    """x (flattened) as a column times y (flattened) as a row: [len(x), len(y)]."""
    col = _C_ops.reshape(x, shape=[-1, 1])
    row = _C_ops.reshape(y, shape=[1, -1])
    return _C_ops.elementwise_mul(col, row)


@accepts(vec=TENSOR, x=FLOATING)
def mv(x, vec, name=None):
    """The matrix-vector product of [M, N] x and [N] vec."""
    return matmul(x, vec)


_INF = float("inf")
_MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, _INF, -_INF)


@accepts(x=FLOATING)
def norm(x, p="fro", axis=None, keepdim=False, name=None):
    """The p-norm over ``axis`` (all of x when None): 'fro' and 2 give the root of the
    sum of squares, 1 the sum of magnitudes, inf/-inf the largest/smallest magnitude,
    any other number (sum |x|^p)^(1/p). Over two axes it is a matrix norm as numpy's:
    'fro', 'nuc' (sum of singular values), 2 / -2 (largest / smallest singular value),
    1 / -1 (max / min column sum of magnitudes), inf / -inf (max / min row sum)."""
    if p is None:
        p = "fro"
    if isinstance(axis, (list, tuple)) and len(axis) == 2:
        return _matrix_norm(x, p, axis, keepdim)
    if axis is None and p == "nuc" and len(arguments.tensor("norm", "x", x).shape) == 2:
        return _matrix_norm(x, p, [0, 1], keepdim)
    if isinstance(p, str) and p != "fro":
        raise arguments.ArgumentError(f"norm: p={p!r} needs two axes (a matrix norm), got "
                                      f"axis={axis!r}")
    return _vector_norm(x, p, axis, keepdim)


def _vector_norm(x, p, axis, keepdim):
    """norm's entrywise p-norm over ``axis`` ('fro' the 2-norm), whatever the axes' count."""
    dims, reduce_all = _axes("norm", x, axis)
    attrs = {"dim": dims, "keep_dim": bool(keepdim), "reduce_all": reduce_all}
    if p == "fro" or p == 2 or p == 2.0:
        return sqrt(_C_ops.reduce_sum(square(x), **attrs))
    if is_tensor(p):
        p = float(p.item())
    p = float(p)
    if p == float("inf"):
        return _C_ops.reduce_max(tensor_abs(x), **attrs)
    if p == float("-inf"):
        return _C_ops.reduce_min(tensor_abs(x), **attrs)
    if p == 1.0:
        return _C_ops.reduce_sum(tensor_abs(x), **attrs)
    return tensor_pow(_C_ops.reduce_sum(tensor_pow(tensor_abs(x), p), **attrs), 1.0 / p)


def _matrix_norm(x, p, axis, keepdim):
    """The matrix norm ``p`` of the matrices in x's two dims ``axis``."""
    if is_tensor(p):
        p = float(p.item())
    if p not in _MATRIX_ORDERS:
        raise arguments.ArgumentError(f"norm: over two axes p must be 'fro', 'nuc', 1, -1, "
                                      f"2, -2, inf or -inf, got {p!r}")
    dims, _ = _axes("norm", x, list(axis))
    a, b = dims
    if a == b:
        raise arguments.ArgumentError(f"norm: the two axes must differ, got {list(axis)}")
    attrs = {"keep_dim": True, "reduce_all": False}
    if p == "fro":
        out = sqrt(_C_ops.reduce_sum(square(x), dim=[a, b], **attrs))
    elif p in ("nuc", 2, -2):
        rank = len(x.shape)
        order = [d for d in range(rank) if d not in (a, b)] + [a, b]
        _, s, _ = _C_ops.svd(_C_ops.transpose(x, axis=order), full_matrices=False)
        op = "reduce_sum" if p == "nuc" else "reduce_max" if p == 2 else "reduce_min"
        out = getattr(_C_ops, op)(s, dim=[-1], keep_dim=False, reduce_all=False)
        out = _C_ops.unsqueeze(out, axes=sorted((a, b)))
    else:
        # numpy's: a sum of magnitudes over one dim, then the max / min over the other
        inner, outer = (a, b) if p in (1, -1) else (b, a)
        sums = _C_ops.reduce_sum(tensor_abs(x), dim=[inner], **attrs)
        op = _C_ops.reduce_max if p > 0 else _C_ops.reduce_min
        out = op(sums, dim=[outer], **attrs)
    if keepdim:
        return out
    return _C_ops.squeeze(out, axes=sorted((a, b)))


def _p_norm_all(d, p, axis):
    """The p-norm of d over ``axis`` (all dims when None), p = 0 counting nonzeros."""
    if p == 0:
        nonzero = _C_ops.cast(_C_ops.not_equal(d, _C_ops.fill_any_like(
            d, value=0.0)),out_dtype=d.dtype.name)
        dims = [] if axis is None else [axis]
        return _C_ops.reduce_sum(nonzero, dim=dims, keep_dim=False, reduce_all=axis is None)
    if p == float("inf") or p == float("-inf"):
        return norm(d, p, axis)
    if p == 1:
        return norm(tensor_abs(d), 1.0, axis)
    return norm(d, 2 if p == 2 else p, axis)


@accepts(x=FLOATING)
def dist(x, y, p=2, name=None):
    """The p-norm of x - y (broadcast) over all its entries, as a 0-d tensor: p = 0
    counts nonzeros, inf/-inf give the largest/smallest magnitude."""
    return _p_norm_all(_C_ops.elementwise_sub(x, y), float(p), None)


@accepts(x=FLOATING)
def cdist(x, y, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary", name=None):
    """The p-norm distances between the rows of x [..., P, M] and of y [..., R, M]:
    [..., P, R] (batch dims broadcast)."""
    if len(x.shape) < 2 or len(y.shape) < 2 or x.shape[-1] != y.shape[-1]:
        raise Error(f"cdist: x and y must be [..., P, M] and [..., R, M], got "
                    f"{list(x.shape)} and {list(y.shape)}")
    rows = _C_ops.unsqueeze(x, axes=[len(x.shape) - 1])
    cols = _C_ops.unsqueeze(y, axes=[len(y.shape) - 2])
    return _p_norm_all(_C_ops.elementwise_sub(rows, cols), float(p), -1)


@accepts(x=FLOATING)
def pdist(x, p=2.0, name=None):
    """The p-norm distances between each pair of rows i < j of the 2-D x [N, M], in the
    order (0, 1), (0, 2), ..., (N-2, N-1): [N * (N - 1) / 2]; p >= 0 (0 counts the
    differing entries, inf takes the largest difference)."""
    if len(x.shape) != 2:
        raise arguments.ArgumentError(f"pdist: x must be 2-D [N, M], got shape {list(x.shape)}")
    p = arguments.number("pdist", "p", p)
    if not float(p) >= 0:
        raise arguments.ArgumentError(f"pdist: p must be >= 0, got {p}")
    n = x.shape[0]
    first = [i for i in range(n) for _ in range(i + 1, n)]
    second = [j for i in range(n) for j in range(i + 1, n)]
    if not first:
        return _C_ops.fill_constant(shape=[0], value=0.0, dtype=dtype_name_of(x))
    rows = [_C_ops.gather(x, to_tensor(ix, dtype="int64"), axis=0) for ix in (first, second)]
    diff, p = _C_ops.elementwise_sub(*rows), float(p)
    if p in (0.0, 1.0, float("inf")):
        return _p_norm_all(diff, p, -1)
    # (sum |d|^p)^(1/p), with gradient 0 (not NaN) where two rows are equal
    powers = square(diff) if p == 2 else tensor_pow(tensor_abs(diff), p)
    total = _C_ops.reduce_sum(powers, dim=[-1], keep_dim=False, reduce_all=False)
    apart = _C_ops.greater_than(total, _C_ops.fill_any_like(total, value=0.0))
    safe = _C_ops.where(apart, total, _C_ops.fill_any_like(total, value=1.0))
    root = sqrt(safe) if p == 2 else tensor_pow(safe, 1.0 / p)
    return _C_ops.where(apart, root, _C_ops.fill_any_like(total, value=0.0))


def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices whose ``offset``-th diagonals hold input's last dim, in the output dims
    dim1 and dim2 (zeros elsewhere)."""
    rank_out = len(input.shape) + 1
    d1 = arguments.axis("diag_embed", dim1, rank_out, "dim1")
    d2 = arguments.axis("diag_embed", dim2, rank_out, "dim2")
    if d1 == d2:
        raise arguments.ArgumentError(f"diag_embed: dim1 and dim2 must differ, got {dim1} and "
                                      f"{dim2}")
    k = arguments.integer("diag_embed", "offset", offset)
    n = input.shape[-1]
    m = n + abs(k)
    name = dtype_name_of(input)
    values = input
    if k:
        pad = _C_ops.fill_constant(shape=list(input.shape[:-1]) + [abs(k)], value=0.0, dtype=name)
        values = _C_ops.concat([input, pad], axis=-1)
    # entry (i, i + k) holds input[i] above the main diagonal, (j - k, j) input[j] below
    values = _C_ops.unsqueeze(values, axes=[rank_out - 1 if k >= 0 else
                                                         rank_out - 2])
    on = _C_ops.equal(_C_ops.elementwise_sub(_positions(m, [1, -1]),
                                               _positions(m, [-1, 1])), constant(k, "int64"))
    square = _C_ops.where(on, values, constant(0, name))
    batch = iter(range(rank_out - 2))
    perm = [rank_out - 2 if j == d1 else rank_out - 1 if j == d2 else next(batch)
            for j in range(rank_out)]
    if perm == list(range(rank_out)):
        return square
    return _C_ops.transpose(square, axis=perm)


def diagflat(x, offset=0, name=None):
    """A square matrix with the flattened x on its ``offset``-th diagonal."""
    return diag(_C_ops.reshape(x, shape=[-1]), offset)


@accepts(inputs=TENSORS)
def block_diag(inputs, name=None):
    """The tensors of ``inputs`` (0-d: [1, 1], 1-D: one row, 2-D) placed along the
    diagonal of one matrix, zeros elsewhere; all of one dtype."""
    blocks = []
    for i, t in enumerate(inputs):
        if len(t.shape) > 2:
            raise ValueError(f"block_diag: inputs[{i}] must have at most 2 dims, got "
                             f"{list(t.shape)}")
        blocks.append(t if len(t.shape) == 2 else
                      _C_ops.reshape(t, shape=[1, -1]))
    if not blocks:
        raise ValueError("block_diag: inputs must hold at least one tensor")
    name = dtype_name_of(blocks[0])
    if any(dtype_name_of(b) != name for b in blocks):
        raise TypeError(f"block_diag: inputs must share one dtype, got "
                        f"{[dtype_name_of(b) for b in blocks]}")
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [_C_ops.fill_constant(shape=[r, n], value=0.0, dtype=name)
                 if n else None for n in (left, width - left - c)]
        row = [p for p in (parts[0], b, parts[1]) if p is not None]
        rows.append(row[0] if len(row) == 1 else _C_ops.concat(row, axis=1))
        left += c
    return rows[0] if len(rows) == 1 else _C_ops.concat(rows, axis=0)


def vander(x, n=None, increasing=False, name=None):
    """The Vandermonde matrix of 1-D x: column j holds x ** (n - 1 - j), or x ** j when
    increasing (n defaults to len(x)); built by repeated products, exact for integers."""
    if len(x.shape) != 1:
        raise ValueError(f"vander: x must be 1-D, got {list(x.shape)}")
    n = x.shape[0] if n is None else arguments.count("vander", "n", n)
    if n < 0:
        raise ValueError(f"vander: n must be >= 0, got {n}")
    name_ = dtype_name_of(x)
    if name_ == "bool":
        raise TypeError("vander: x must be a number tensor, got bool")
    if n == 0:
        return _C_ops.fill_constant(shape=[x.shape[0], 0], value=0.0, dtype=name_)
    columns = [_C_ops.fill_constant(shape=list(x.shape), value=1.0, dtype=name_)]
    for _ in range(n - 1):
        columns.append(_C_ops.elementwise_mul(columns[-1], x))
    if not increasing:
        columns.reverse()
    return _C_ops.stack(columns, axis=1)


@accepts(x=FLOATING)
def renorm(x, p, axis, max_norm):
    """x with each slice along ``axis`` whose p-norm (over the other dims) exceeds
    max_norm scaled down to norm max_norm (by max_norm / (norm + 1e-7))."""
    rank = len(x.shape)
    axis = arguments.axis("renorm", axis, rank)
    others = [d for d in range(rank) if d != axis]
    p = arguments.number("renorm", "p", p)
    max_norm = arguments.number("renorm", "max_norm", max_norm)
    norms = _vector_norm(x, p, others, keepdim=True) if others else \
        _C_ops.abs(x)
    name = dtype_name_of(x)
    limit = constant(max_norm, name)
    factor = _C_ops.elementwise_div(limit, _C_ops.scale(norms, scale=1.0, bias=1e-7))
    over = _C_ops.greater_than(norms, limit)
    return _C_ops.elementwise_mul(x, _C_ops.where(over, factor, constant(1.0, name)))


@accepts(x=FLOATING)
def renorm_(x, p, axis, max_norm):
    """renorm, written into x."""
    return _C_ops.assign(renorm(x, p, axis, max_norm), out=[x])
