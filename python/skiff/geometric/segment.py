"""Segment reductions (paddle.geometric.segment_sum, segment_mean, segment_max,
segment_min): rows of data sharing a (sorted) segment id reduced into one row each."""
from ..framework.arguments import ArgumentError
from .scatter_reduce import check_index, check_values, reduce_rows

__all__ = ["segment_sum", "segment_mean", "segment_max", "segment_min"]


def _segments(fn, data, segment_ids, op):
    check_values(fn, "data", data)
    ids = check_index(fn, "segment_ids", segment_ids)
    if ids.shape[0] != data.shape[0]:
        raise ArgumentError(f"{fn}: segment_ids must have one entry per row of data "
                            f"({data.shape[0]}), got {ids.shape[0]}")
    n = int(ids.max()) + 1 if ids.shape[0] else 0
    if ids.shape[0] and int(ids.min()) < 0:
        raise ArgumentError(f"{fn}: segment_ids must be >= 0, got {int(ids.min())}")
    return reduce_rows(data, ids, n, op)


def segment_sum(data, segment_ids, name=None):
    """Row i of the result sums the rows of data whose segment id is i (max id + 1 rows)."""
    return _segments("segment_sum", data, segment_ids, "sum")


def segment_mean(data, segment_ids, name=None):
    """Row i is the mean of the rows of data whose segment id is i (0 for none)."""
    return _segments("segment_mean", data, segment_ids, "mean")


def segment_max(data, segment_ids, name=None):
    """Row i is the elementwise max of the rows of data whose segment id is i (0 for none)."""
    return _segments("segment_max", data, segment_ids, "max")


def segment_min(data, segment_ids, name=None):
    """Row i is the elementwise min of the rows of data whose segment id is i (0 for none)."""
    return _segments("segment_min", data, segment_ids, "min")
