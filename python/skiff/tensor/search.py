"""Searching and sorting (Paddle's paddle.tensor.search): argmax/argmin, topk, sort,
argsort, where, nonzero, masked_select."""
from ..framework import dtype as dt
from ..framework.core import apply
from .scalars import as_operands, constant, dtype_name_of, is_tensor

__all__ = ["argmax", "argmin", "topk", "sort", "argsort", "where", "nonzero", "masked_select"]


def _arg_extreme(op, x, axis, keepdim, dtype):
    if axis is None:
        out = apply(op, x, attrs={"flatten": True, "keepdims": False})
        if keepdim:
            out = apply("reshape", out, attrs={"shape": [1] * len(x.shape)})
    else:
        axis = int(axis.item()) if is_tensor(axis) else int(axis)
        out = apply(op, x, attrs={"axis": axis, "keepdims": bool(keepdim)})
    name = dt.dtype_name(dtype)
    return out if name == "int64" else apply("cast", out, attrs={"out_dtype": name})


def argmax(x, axis=None, keepdim=False, dtype="int64", name=None):
    """The index of the first largest element along ``axis`` (of all of x when None)."""
    return _arg_extreme("argmax", x, axis, keepdim, dtype)


def argmin(x, axis=None, keepdim=False, dtype="int64", name=None):
    """The index of the first smallest element along ``axis`` (of all of x when None)."""
    return _arg_extreme("argmin", x, axis, keepdim, dtype)


def topk(x, k, axis=None, largest=True, sorted=True, name=None):
    """(values, indices) of the k largest (smallest) entries along ``axis`` (the last
    when None)."""
    k = int(k.item()) if is_tensor(k) else int(k)
    axis = -1 if axis is None else int(axis)
    return apply("top_k", x, attrs={"k": k, "axis": axis, "largest": bool(largest),
                                    "sorted": bool(sorted)})


def _full_sort(x, axis, descending):
    rank = len(x.shape)
    axis = int(axis)
    n = x.shape[axis + rank if axis < 0 else axis] if rank else 1
    if rank == 0:
        return x, apply("fill_any_like", x, attrs={"value": 0.0, "dtype": "int64"})
    if n < 0:
        from .._C import Error
        raise Error(f"sort: the size of axis {axis} of {list(x.shape)} must be known")
    return apply("top_k", x, attrs={"k": n, "axis": axis, "largest": bool(descending),
                                    "sorted": True})


def sort(x, axis=-1, descending=False, stable=False, name=None):
    """x sorted along ``axis`` (stable: equal entries keep their order; NaN last when
    ascending); differentiable."""
    return _full_sort(x, axis, descending)[0]


def argsort(x, axis=-1, descending=False, stable=False, name=None):
    """The indices that sort x along ``axis`` (stable)."""
    return _full_sort(x, axis, descending)[1]


def where(condition, x=None, y=None, name=None):
    """x where ``condition`` holds, else y (broadcast); with only ``condition``, the
    indices of its nonzero entries as a tuple of 1-D tensors (as nonzero(as_tuple=True))."""
    if x is None and y is None:
        return nonzero(condition, as_tuple=True)
    if not is_tensor(x) or not is_tensor(y):
        if is_tensor(x) or is_tensor(y):
            x, y = as_operands(x, y)
        else:
            x = constant(x, "float32" if isinstance(x, float) else "int64")
            y = constant(y, dtype_name_of(x))
    if dtype_name_of(condition) != "bool":
        condition = apply("cast", condition, attrs={"out_dtype": "bool"})
    return apply("where", condition, x, y)


def nonzero(x, as_tuple=False):
    """The indices of x's nonzero entries: int64 [n, rank], or a tuple of rank 1-D tensors."""
    idx = apply("where_index", x)
    if not as_tuple:
        return idx
    rank = len(x.shape)
    return tuple(apply("slice", idx, attrs={"axes": [1], "starts": [i], "ends": [i + 1],
                                            "decrease_axis": [1]}) for i in range(rank))


def masked_select(x, mask, name=None):
    """The entries of x where ``mask`` (broadcast to x) holds, as a 1-D tensor."""
    if list(mask.shape) != list(x.shape):
        mask = apply("expand", mask, attrs={"shape": list(x.shape)})
    return apply("gather_nd", x, nonzero(mask))
