"""Neighbor sampling on a CSC graph (paddle.geometric.sample_neighbors,
weighted_sample_neighbors): for each input node, up to sample_size of its in-neighbors
row[colptr[n]:colptr[n + 1]], drawn without replacement, all of them when it has fewer."""
from ..framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of, is_tensor
from ..tensor import (arange, argsort, cast, clip, cumsum, gather, log, masked_select, rand,
                      repeat_interleave, scatter, zeros)

__all__ = ["sample_neighbors", "weighted_sample_neighbors"]


def _ids(fn, name, t):
    if not is_tensor(t):
        raise ArgumentTypeError(f"{fn}: {name} must be a Tensor, got {type(t).__name__}")
    if dtype_name_of(t) not in ("int32", "int64"):
        raise ArgumentTypeError(f"{fn}: {name} must be int32 or int64, got {dtype_name_of(t)}")
    if len(t.shape) != 1:
        raise ArgumentError(f"{fn}: {name} must be 1-D, got shape {list(t.shape)}")
    return cast(t, "int64")


def _sample(fn, row, colptr, nodes, sample_size, eids, return_eids, weight):
    """(neighbors, count[, eids]) keeping, per node, the sample_size edges of smallest
    random key (uniform keys, or -log(u) / w for weighted sampling)."""
    rows, ptr, nodes64 = _ids(fn, "row", row), _ids(fn, "colptr", colptr), \
        _ids(fn, "input_nodes", nodes)
    if isinstance(sample_size, bool) or not isinstance(sample_size, int) or \
            sample_size < -1 or sample_size == 0:
        raise ArgumentError(f"{fn}: sample_size must be a positive int or -1, got "
                            f"{sample_size!r}")
    if return_eids and eids is None:
        raise ArgumentError(f"{fn}: return_eids=True needs eids")
    if nodes64.shape[0] and (int(nodes64.min()) < 0 or
                             int(nodes64.max()) >= int(ptr.shape[0]) - 1):
        raise ArgumentError(f"{fn}: input_nodes must lie in [0, {int(ptr.shape[0]) - 1}) "
                            f"(colptr has {ptr.shape[0]} entries)")
    starts = gather(ptr, nodes64)
    degs = gather(ptr, nodes64 + 1) - starts
    total = int(degs.sum()) if nodes64.shape[0] else 0
    if total and int(ptr.max()) > int(rows.shape[0]):
        raise ArgumentError(f"{fn}: colptr points past the {rows.shape[0]} entries of row")
    group = repeat_interleave(arange(0, nodes64.shape[0], dtype="int64"), degs)
    first = cumsum(degs, axis=0) - degs
    edge = repeat_interleave(starts - first, degs) + arange(0, total, dtype="int64")
    if weight is None:
        keys = rand([total], "float32")
    else:
        w = cast(gather(weight, edge), "float32")
        keys = -log(rand([total], "float32").clip(min=1e-12)) / w
    by_key = argsort(keys, stable=True)
    order = gather(by_key, argsort(gather(group, by_key), stable=True))
    place = arange(0, total, dtype="int64") - gather(first, gather(group, order))
    limit = total if sample_size == -1 else sample_size
    kept = scatter(zeros([total], "int64"), order, cast(place < limit, "int64"))
    chosen = masked_select(edge, kept > 0)
    count = cast(clip(degs, max=limit) if total else degs, "int32")
    out = [gather(row, chosen), count]
    if return_eids:
        out.append(gather(eids, chosen))
    return tuple(out)


def sample_neighbors(row, colptr, input_nodes, sample_size=-1, eids=None, return_eids=False,
                     perm_buffer=None, name=None):
    """(out_neighbors, out_count[, out_eids]): up to sample_size in-neighbors of each
    input node, drawn uniformly without replacement (all of them for sample_size=-1)."""
    return _sample("sample_neighbors", row, colptr, input_nodes, sample_size, eids,
                   return_eids, None)


def weighted_sample_neighbors(row, colptr, edge_weight, input_nodes, sample_size=-1,
                              eids=None, return_eids=False, name=None):
    """sample_neighbors drawing each edge with probability proportional to edge_weight
    (without replacement)."""
    fn = "weighted_sample_neighbors"
    if not is_tensor(edge_weight) or dtype_name_of(edge_weight) not in ("float32", "float64"):
        raise ArgumentTypeError(f"{fn}: edge_weight must be a float32 or float64 Tensor")
    if int(edge_weight.shape[0]) < int(row.shape[0]):
        raise ArgumentError(f"{fn}: edge_weight must hold one weight per edge "
                            f"({row.shape[0]}), got {edge_weight.shape[0]}")
    return _sample(fn, row, colptr, input_nodes, sample_size, eids, return_eids, edge_weight)
