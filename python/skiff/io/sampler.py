"""Samplers yield dataset indices; `BatchSampler` groups them into lists of indices.

    np.random.seed(0)
    for indices in BatchSampler(dataset, shuffle=True, batch_size=32):
        ...   # the same order after the same seed

Random orders come from a `generator` (np.random.Generator or RandomState) when one is given,
else from numpy's global RNG, drawn when iteration starts.
"""

import numpy as np

__all__ = [
    "Sampler",
    "SequenceSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "WeightedRandomSampler",
    "BatchSampler",
]


def _random_integers(generator, high, size):
    """`size` integers in [0, high) from `generator` or numpy's global RNG."""
    if generator is None:
        return np.random.randint(0, high, size=size)
    if hasattr(generator, "integers"):
        return generator.integers(0, high, size=size)
    return generator.randint(0, high, size=size)


class Sampler:
    """Base of all samplers: subclasses define `__iter__` (and `__len__` when they know it)."""

    def __init__(self, data_source=None):
        self.data_source = data_source

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must define __iter__()")


class SequenceSampler(Sampler):
    """Yields 0, 1, ..., len(data_source) - 1."""

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """Yields a random permutation of the indices, or `num_samples` draws with replacement.

    `generator` is an np.random.Generator / RandomState, or (as in Paddle) an iterator that
    yields the indices itself; None means numpy's global RNG.
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        super().__init__(data_source)
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a bool, got {replacement!r}")
        if num_samples is not None and not replacement:
            raise ValueError("num_samples can only be set together with replacement=True")
        if num_samples is not None and num_samples <= 0:
            raise ValueError(f"num_samples must be positive, got {num_samples}")
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is not None and hasattr(self.generator, "__next__"):
            return (int(next(self.generator)) for _ in range(self.num_samples))
        if self.replacement:
            return iter(_random_integers(self.generator, n, self.num_samples).tolist())
        rng = np.random if self.generator is None else self.generator
        return iter(rng.permutation(n).tolist())

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """Yields the given indices in a random order (numpy's global RNG)."""

    def __init__(self, indices):
        super().__init__(None)
        if len(indices) == 0:
            raise ValueError("SubsetRandomSampler needs at least one index")
        self.indices = list(indices)

    def __iter__(self):
        return iter([self.indices[i] for i in np.random.permutation(len(self.indices))])

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Draws `num_samples` indices with probability proportional to `weights`."""

    def __init__(self, weights, num_samples, replacement=True):
        super().__init__(None)
        if hasattr(weights, "numpy") and not isinstance(weights, np.ndarray):
            weights = weights.numpy()
        weights = np.asarray(weights, dtype=np.float64).reshape(-1)
        if (weights < 0).any() or weights.sum() <= 0:
            raise ValueError("WeightedRandomSampler: weights must be >= 0 with a positive sum")
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples must be a positive int, got {num_samples!r}")
        if not replacement and num_samples > np.count_nonzero(weights):
            raise ValueError(
                f"cannot draw {num_samples} samples without replacement from "
                f"{np.count_nonzero(weights)} non-zero weights"
            )
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement

    def __iter__(self):
        p = self.weights / self.weights.sum()
        drawn = np.random.choice(len(p), self.num_samples, replace=self.replacement, p=p)
        return iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Yields lists of `batch_size` indices from `sampler`, or from `dataset` in order
    (shuffle=False) or shuffled (shuffle=True). The last short batch is kept unless drop_last.
    """

    def __init__(self, dataset=None, sampler=None, shuffle=False, batch_size=1, drop_last=False):
        if (dataset is None) == (sampler is None):
            raise ValueError("BatchSampler needs exactly one of dataset and sampler")
        if sampler is not None and shuffle:
            raise ValueError("BatchSampler: shuffle must be False when a sampler is given")
        if not isinstance(batch_size, (int, np.integer)) or batch_size <= 0:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if not isinstance(drop_last, bool):
            raise TypeError(f"drop_last must be a bool, got {drop_last!r}")
        if sampler is None:
            sampler = RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
        super().__init__(dataset)
        self.sampler = sampler
        self.shuffle = shuffle
        self.batch_size = int(batch_size)
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
