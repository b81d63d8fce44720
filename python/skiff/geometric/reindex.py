"""Renumbering a sampled subgraph (paddle.geometric.reindex_graph, reindex_heter_graph):
the input nodes keep ids 0..len(x)-1, the other neighbors take the next ids in order of
first appearance."""
from ..framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of, is_tensor
from ..tensor import arange, argsort, cast, concat, gather, repeat_interleave, unique

__all__ = ["reindex_graph", "reindex_heter_graph"]


def _ids(fn, name, t, dtypes=("int32", "int64")):
    if not is_tensor(t):
        raise ArgumentTypeError(f"{fn}: {name} must be a Tensor, got {type(t).__name__}")
    if dtype_name_of(t) not in dtypes:
        raise ArgumentTypeError(f"{fn}: {name} must be int32 or int64, got {dtype_name_of(t)}")
    if len(t.shape) != 1:
        raise ArgumentError(f"{fn}: {name} must be 1-D, got shape {list(t.shape)}")
    return t


def _reindex(fn, x, neighbors, counts):
    """(reindex_src, reindex_dst, out_nodes) over the concatenated neighbor lists."""
    _ids(fn, "x", x)
    dtype = dtype_name_of(x)
    dsts = []
    for k, (nb, cnt) in enumerate(zip(neighbors, counts)):
        _ids(fn, f"neighbors[{k}]" if len(neighbors) > 1 else "neighbors", nb)
        _ids(fn, f"count[{k}]" if len(counts) > 1 else "count", cnt)
        if dtype_name_of(nb) != dtype:
            raise ArgumentTypeError(f"{fn}: neighbors must have x's dtype {dtype}, got "
                                    f"{dtype_name_of(nb)}")
        if cnt.shape[0] != x.shape[0]:
            raise ArgumentError(f"{fn}: count must hold one entry per node of x "
                                f"({x.shape[0]}), got {cnt.shape[0]}")
        if int(cnt.sum()) != int(nb.shape[0]):
            raise ArgumentError(f"{fn}: count sums to {int(cnt.sum())}, but neighbors holds "
                                f"{nb.shape[0]} entries")
        dsts.append(repeat_interleave(arange(0, x.shape[0], dtype=dtype), cast(cnt, "int64")))
    every = concat([x] + list(neighbors))
    values, first, inverse = unique(every, return_index=True, return_inverse=True)
    if int(unique(x).shape[0]) != int(x.shape[0]):
        raise ArgumentError(f"{fn}: the nodes of x must be unique")
    order = argsort(first, stable=True)  # the unique values by first appearance
    rank = argsort(order, stable=True)   # each unique value's new id
    src = cast(gather(rank, inverse[x.shape[0]:]), dtype)
    return src, concat(dsts), gather(values, order)


def reindex_graph(x, neighbors, count, value_buffer=None, index_buffer=None, name=None):
    """(reindex_src, reindex_dst, out_nodes): neighbors and their centers x (count[i]
    neighbors each) renumbered into out_nodes, x first."""
    return _reindex("reindex_graph", x, [neighbors], [count])


def reindex_heter_graph(x, neighbors, count, value_buffer=None, index_buffer=None,
                        name=None):
    """reindex_graph over several edge types: lists of neighbors and counts, renumbered
    together, their reindexed edges concatenated."""
    fn = "reindex_heter_graph"
    if not isinstance(neighbors, (list, tuple)) or not isinstance(count, (list, tuple)):
        raise ArgumentTypeError(f"{fn}: neighbors and count must be lists of Tensors")
    if len(neighbors) != len(count) or not neighbors:
        raise ArgumentError(f"{fn}: neighbors and count must be non-empty lists of one "
                            f"length, got {len(neighbors)} and {len(count)}")
    return _reindex(fn, x, neighbors, count)
