"""The rulebook of a sparse convolution or pooling: for each kernel offset, which stored
input site feeds which output site. Built on the host from the integer indices of a COO
tensor [N, *spatial, C] (sparse_dim 1 + spatial dims); the features never leave skiff."""
import itertools

import numpy as np

from ....framework import arguments
from ....framework.arguments import ArgumentError
from ... import pattern


def sizes(fn, name, value, nd):
    """An int or nd ints as a list of nd positive ints."""
    vals = arguments.integers(fn, name, value)
    vals = vals * nd if len(vals) == 1 else vals
    if len(vals) != nd or any(v < 1 for v in vals):
        raise ArgumentError(f"{fn}: {name} must be a positive int or {nd} of them, got {value}")
    return vals


def paddings(fn, padding, nd, kernel, dilation):
    """(before, after) pads per spatial dim from Paddle's forms: an int, nd ints, 2*nd
    ints, nd pairs, 'valid' or 'same'."""
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return [0] * nd, [0] * nd
        if mode == "same":
            total = [d * (k - 1) for k, d in zip(kernel, dilation)]
            return [t // 2 for t in total], [t - t // 2 for t in total]
        raise ArgumentError(f"{fn}: padding must be 'same', 'valid' or ints, got {padding!r}")
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        pairs = [list(p) for p in padding][-nd:]
        return [int(p[0]) for p in pairs], [int(p[1]) for p in pairs]
    vals = arguments.integers(fn, "padding", padding)
    if len(vals) == 1:
        vals = vals * nd
    if len(vals) == nd:
        before, after = vals, vals
    elif len(vals) == 2 * nd:
        before, after = vals[0::2], vals[1::2]
    else:
        raise ArgumentError(f"{fn}: padding must have 1, {nd} or {2 * nd} entries, got {padding}")
    if any(p < 0 for p in before + after):
        raise ArgumentError(f"{fn}: padding must be >= 0, got {padding}")
    return list(before), list(after)


def out_shape(in_spatial, kernel, stride, before, after, dilation, ceil_mode=False):
    out = []
    for n, k, s, pb, pa, d in zip(in_spatial, kernel, stride, before, after, dilation):
        span = n + pb + pa - d * (k - 1) - 1
        size = (span + s - 1) // s + 1 if ceil_mode else span // s + 1
        out.append(max(size, 0))
    return out


class Rulebook:
    """out_indices [1+nd, U] (sorted) and, per kernel offset k, pairs[k] = (input
    entries, output sites) as host int arrays."""

    def __init__(self, out_indices, pairs):
        self.out_indices = out_indices
        self.pairs = pairs


def build(indices, in_spatial, kernel, stride, before, dilation, out_spatial, subm):
    """The rulebook of a conv over entries at ``indices`` [1+nd, nnz] (batch first). A
    submanifold one keeps the input sites as outputs and centres the kernel."""
    nd = len(kernel)
    batch, sites = indices[0], indices[1:]
    offsets = list(itertools.product(*[range(k) for k in kernel]))
    if subm:
        before = [(k - 1) // 2 * d for k, d in zip(kernel, dilation)]
        stride = [1] * nd
        out_spatial = list(in_spatial)
    found = []
    for k, off in enumerate(offsets):  # out * stride - before + off * dilation = in
        num = sites + np.asarray(before)[:, None] - \
            (np.asarray(off) * np.asarray(dilation))[:, None]
        ok = np.all(num % np.asarray(stride)[:, None] == 0, axis=0)
        pos = num // np.asarray(stride)[:, None]
        ok &= np.all((pos >= 0) & (pos < np.asarray(out_spatial)[:, None]), axis=0)
        entries = np.nonzero(ok)[0]
        found.append((k, entries, np.concatenate([batch[None, entries], pos[:, entries]])))
    if subm:
        out_indices = indices
    else:
        joined = np.concatenate([f[2] for f in found], axis=1) if found else \
            np.zeros([nd + 1, 0], np.int64)
        out_indices, _ = pattern.unique_columns(joined)
    pairs = []
    for k, entries, where in found:
        if subm:  # only the pairs whose output is an input site
            present, sites_k = lookup(where, out_indices)
            entries, sites_k = entries[present], sites_k[present]
        else:
            sites_k = pattern.positions(where, out_indices) if len(entries) else entries
        pairs.append((entries, sites_k))
    return Rulebook(out_indices, pairs), out_spatial


def lookup(where, table):
    """(present, position): which columns of ``where`` are columns of ``table`` and where
    (-1 for the absent ones)."""
    n = table.shape[1]
    uniq, inverse = pattern.unique_columns(np.concatenate([table, where], axis=1))
    slot = np.full(uniq.shape[1], -1, np.int64)
    slot[inverse[:n]] = np.arange(n)
    position = slot[inverse[n:]]
    return position >= 0, position
