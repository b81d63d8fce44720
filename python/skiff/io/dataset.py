"""Dataset types: map-style (`Dataset`) and stream-style (`IterableDataset`) plus combinators.

    ds = TensorDataset([images, labels])        # numpy arrays with the same first dim
    train, val = random_split(ds, [0.8, 0.2])   # index subsets, order from numpy's RNG
"""

import bisect
import math
import warnings

import numpy as np

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "ComposeDataset",
    "ConcatDataset",
    "ChainDataset",
    "Subset",
    "random_split",
]


class Dataset:
    """Map-style dataset: subclasses define `__getitem__(idx)` and `__len__()`."""

    def __getitem__(self, idx):
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__(idx)")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __len__()")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """Stream-style dataset: subclasses define `__iter__()`.

    With `num_workers > 0` every worker iterates its own copy; shard inside `__iter__` with
    `skiff.io.get_worker_info()` (None in the main process) or each sample is seen once per worker.
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")

    def __getitem__(self, idx):
        raise TypeError(f"{type(self).__name__} is an IterableDataset and cannot be indexed")

    def __len__(self):
        raise TypeError(f"{type(self).__name__} is an IterableDataset and has no len()")


def _as_numpy(value):
    """Returns `value` as a numpy array; objects with a `.numpy()` method (Tensors) use it."""
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    return np.asarray(value)


class TensorDataset(Dataset):
    """Item i is a tuple with row i of each array; arrays share their first dimension.

    Tensors (objects with `.numpy()`) are converted to numpy once here; the DataLoader turns
    the collated batches back into Tensors.
    """

    def __init__(self, tensors):
        arrays = [_as_numpy(t) for t in tensors]
        if not arrays:
            raise ValueError("TensorDataset needs at least one array")
        for i, a in enumerate(arrays):
            if a.ndim == 0 or a.shape[0] != arrays[0].shape[0]:
                shapes = [list(x.shape) for x in arrays]
                raise ValueError(
                    f"TensorDataset: all arrays need the same first dimension; "
                    f"got shapes {shapes} (array {i} differs)"
                )
        self.tensors = arrays

    def __getitem__(self, idx):
        return tuple(a[idx] for a in self.tensors)

    def __len__(self):
        return self.tensors[0].shape[0]


class ComposeDataset(Dataset):
    """Item i concatenates the fields of item i of every dataset (all of the same length)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ComposeDataset needs at least one dataset")
        lengths = [len(d) for d in self.datasets]
        if len(set(lengths)) != 1:
            raise ValueError(f"ComposeDataset: datasets have different lengths {lengths}")

    def __len__(self):
        return len(self.datasets[0])

    def __getitem__(self, idx):
        fields = []
        for d in self.datasets:
            item = d[idx]
            fields.extend(item if isinstance(item, (tuple, list)) else [item])
        return tuple(fields)


class ConcatDataset(Dataset):
    """The datasets one after another: indices run through the first, then the second, ..."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset needs at least one dataset")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not take IterableDatasets; use ChainDataset")
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self):
        return int(self.cumulative_sizes[-1])

    def __getitem__(self, idx):
        n = len(self)
        if idx < 0:
            idx += n
        if not 0 <= idx < n:
            raise IndexError(f"index {idx} out of range for ConcatDataset of length {n}")
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = 0 if which == 0 else int(self.cumulative_sizes[which - 1])
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterates the iterable datasets one after another."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise TypeError(f"ChainDataset takes IterableDatasets, got {type(d).__name__}")

    def __iter__(self):
        for d in self.datasets:
            yield from d


class Subset(Dataset):
    """The items of `dataset` at `indices`, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, idx):
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)


def _split_lengths(total, lengths):
    """Turns fractions summing to 1 into item counts (remainder spread from the front)."""
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise ValueError(f"random_split: fraction {frac} at index {i} is not in [0, 1]")
        counts = [int(math.floor(total * frac)) for frac in lengths]
        for i in range(total - sum(counts)):
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(f"random_split: split {i} is empty", stacklevel=3)
        return counts
    return [int(n) for n in lengths]


def random_split(dataset, lengths, generator=None):
    """Splits `dataset` into non-overlapping random `Subset`s of the given lengths.

    `lengths` are counts summing to len(dataset) or fractions summing to 1. The permutation
    comes from `generator` (np.random.Generator / RandomState) or numpy's global RNG.
    """
    total = len(dataset)
    counts = _split_lengths(total, list(lengths))
    if sum(counts) != total:
        raise ValueError(
            f"random_split: lengths {list(lengths)} sum to {sum(counts)}, "
            f"but the dataset has {total} items"
        )
    rng = np.random if generator is None else generator
    order = rng.permutation(total).tolist()
    subsets, start = [], 0
    for count in counts:
        subsets.append(Subset(dataset, order[start : start + count]))
        start += count
    return subsets
