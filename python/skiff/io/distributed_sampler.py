"""DistributedBatchSampler (Paddle's paddle.io.DistributedBatchSampler): the batches of one
replica's share of a dataset, padded so that every replica gets the same number of samples."""
import math
import numbers

import numpy as np

from .sampler import BatchSampler
from ..distributed import ParallelEnv, collective

__all__ = ["DistributedBatchSampler"]


def _check_int(value, what, low):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        kind = "positive" if low > 0 else "non-negative"
        raise ValueError(f"DistributedBatchSampler: {what} must be a {kind} int, got {value!r}")
    return int(value)


class DistributedBatchSampler(BatchSampler):
    """Batches of the indices that replica ``rank`` of ``num_replicas`` owns (defaults: this
    worker's rank and the world size of its job, skiff.distributed; 0 of 1 alone). The index list is padded by repeating its head to a multiple
    of num_replicas, shuffled with the epoch as seed when ``shuffle`` (the epoch then
    advances; set_epoch sets it), and dealt out a batch at a time to each replica in turn,
    the last partial round split evenly."""

    def __init__(self, dataset, batch_size, num_replicas=None, rank=None, shuffle=False,
                 drop_last=False):
        self.dataset = dataset
        self.batch_size = _check_int(batch_size, "batch_size", 1)
        if not isinstance(shuffle, bool):
            raise TypeError(f"DistributedBatchSampler: shuffle must be a bool, got {shuffle!r}")
        if not isinstance(drop_last, bool):
            raise TypeError(f"DistributedBatchSampler: drop_last must be a bool, "
                            f"got {drop_last!r}")
        if num_replicas is None or rank is None:
            world = collective._State.world
            env = ParallelEnv()
            default_size = world.nranks if world else env.world_size
            default_rank = world.rank if world else env.rank
        self.nranks = default_size if num_replicas is None else \
            _check_int(num_replicas, "num_replicas", 1)
        self.local_rank = default_rank if rank is None else _check_int(rank, "rank", 0)
        if self.local_rank >= self.nranks:
            raise ValueError(f"DistributedBatchSampler: rank must be below num_replicas "
                             f"({self.nranks}), got {self.local_rank}")
        self.shuffle = shuffle
        self.drop_last = drop_last
        self.sampler = None
        self.epoch = 0
        self.num_samples = int(math.ceil(len(dataset) / self.nranks))
        self.total_size = self.num_samples * self.nranks

    def _padded_indices(self):
        n = len(self.dataset)
        indices = list(range(n))
        missing = self.total_size - n
        if missing > 0:
            repeats = -(-missing // n)
            indices += (indices * repeats)[:missing]
        return indices

    def _local_indices(self, indices):
        """This replica's share: batch_size indices from each round of nranks batches,
        then its equal part of the last partial round."""
        round_size = self.batch_size * self.nranks
        tail = self.total_size % round_size
        full = len(indices) - tail
        mine = []
        for start in range(self.local_rank * self.batch_size, full, round_size):
            mine.extend(indices[start:start + self.batch_size])
        part = tail // self.nranks
        mine.extend(indices[full + self.local_rank * part:full + (self.local_rank + 1) * part])
        return mine

    def __iter__(self):
        indices = self._padded_indices() if len(self.dataset) else []
        if self.shuffle:
            np.random.RandomState(self.epoch).shuffle(indices)
            self.epoch += 1
        if self.nranks > 1:
            indices = self._local_indices(indices)
        for start in range(0, len(indices), self.batch_size):
            batch = indices[start:start + self.batch_size]
            if len(batch) == self.batch_size or not self.drop_last:
                yield batch

    def __len__(self):
        extra = 0 if self.drop_last else self.batch_size - 1
        return (self.num_samples + extra) // self.batch_size

    def set_epoch(self, epoch):
        """Sets the epoch, the seed of the next shuffle (the same on every replica)."""
        self.epoch = epoch
