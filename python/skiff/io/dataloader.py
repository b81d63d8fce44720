"""`DataLoader`: batches of a dataset as skiff Tensors, loaded in-process or by workers.

    loader = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=2)
    for images, labels in loader:      # Tensors (numpy arrays until skiff._C is built)
        ...

A sample `(image, label)` becomes a batch `[images, labels]`; dict samples become dicts.
"""

import numpy as np

from .collate import _to_tensor, default_collate_fn, default_convert_fn
from .dataloader_iter import MultiProcessIter, SingleProcessIter
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequenceSampler

__all__ = ["DataLoader"]


class DataLoader:
    """Iterates `dataset` in batches (Paddle's `paddle.io.DataLoader`).

    Map-style datasets are read in `batch_sampler` order (built from batch_size / shuffle /
    drop_last when not given; shuffle draws from numpy's global RNG when iteration starts).
    An IterableDataset is read in its own order, batch_size samples at a time.

    Args:
        dataset: a `Dataset` or `IterableDataset`.
        feed_list: with return_list=False, variables whose `.name`s key each batch's fields.
        places: accepted for Paddle code; batches are CPU Tensors.
        return_list: True yields Tensors (numpy arrays while skiff._C cannot be imported);
            False yields numpy arrays, or dicts keyed by `feed_list` names, to feed a program.
        batch_sampler: yields lists of indices; excludes batch_size, shuffle and drop_last.
        batch_size: samples per batch; None disables batching (samples come one by one).
        shuffle, drop_last: random order each epoch; drop the last short batch.
        collate_fn: list of samples -> batch; default stacks into numpy arrays.
        num_workers: 0 loads in this process; N > 0 starts N worker processes per epoch
            (fork on Linux; with other start methods the dataset must be picklable).
        prefetch_factor: batches in flight per worker.
        use_shared_memory: accepted for Paddle code; batches travel through pipes.
        timeout: seconds to wait for a worker's batch before raising (0 = forever).
        worker_init_fn: called as fn(worker_id) in each worker after it is seeded.

    Each worker seeds `random` and `np.random` with a base seed drawn from numpy's global RNG
    plus its id, so random transforms differ across workers and repeat under np.random.seed.
    """

    def __init__(
        self,
        dataset,
        *,
        feed_list=None,
        places=None,
        return_list=True,
        batch_sampler=None,
        batch_size=1,
        shuffle=False,
        drop_last=False,
        collate_fn=None,
        num_workers=0,
        prefetch_factor=2,
        use_shared_memory=True,
        timeout=0,
        worker_init_fn=None,
    ):
        self.dataset = dataset
        self.feed_list = feed_list
        self.places = places
        self.return_list = return_list
        self.use_shared_memory = use_shared_memory
        self._is_iterable = isinstance(dataset, IterableDataset)
        self._check_options(
            batch_sampler, batch_size, shuffle, drop_last, num_workers, prefetch_factor, timeout
        )
        self.num_workers = int(num_workers)
        self.prefetch_factor = int(prefetch_factor)
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn

        if batch_sampler is not None:
            self.batch_size = getattr(batch_sampler, "batch_size", None)
            self.drop_last = getattr(batch_sampler, "drop_last", False)
            self.batch_sampler = batch_sampler
            self._index_sampler = batch_sampler
            self._auto_collation = True
        else:
            self.batch_size = batch_size
            self.drop_last = drop_last
            self.batch_sampler = None
            self._index_sampler = None
            self._auto_collation = batch_size is not None
            if not self._is_iterable:
                if batch_size is None:
                    self._index_sampler = (
                        RandomSampler(dataset) if shuffle else SequenceSampler(dataset)
                    )
                else:
                    self.batch_sampler = BatchSampler(
                        dataset=dataset, shuffle=shuffle, batch_size=batch_size, drop_last=drop_last
                    )
                    self._index_sampler = self.batch_sampler
        if collate_fn is None:
            collate_fn = default_collate_fn if self._auto_collation else default_convert_fn
        self.collate_fn = collate_fn

    def _check_options(
        self, batch_sampler, batch_size, shuffle, drop_last, num_workers, prefetch_factor, timeout
    ):
        if num_workers < 0:
            raise ValueError(f"num_workers must be >= 0, got {num_workers}")
        if timeout < 0:
            raise ValueError(f"timeout must be >= 0, got {timeout}")
        if num_workers > 0 and prefetch_factor < 1:
            raise ValueError(f"prefetch_factor must be >= 1 with workers, got {prefetch_factor}")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or drop_last:
                raise ValueError(
                    "batch_sampler excludes batch_size, shuffle and drop_last; set them on "
                    "the batch sampler"
                )
            if self._is_iterable:
                raise ValueError("an IterableDataset cannot take a batch_sampler")
        if batch_size is not None and (
            isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer))
            or batch_size <= 0
        ):
            raise ValueError(f"batch_size must be a positive int or None, got {batch_size!r}")
        if self._is_iterable and shuffle:
            raise ValueError("shuffle=True is not possible with an IterableDataset")

    def __iter__(self):
        if self.num_workers == 0:
            return SingleProcessIter(self)
        return MultiProcessIter(self)

    def __call__(self):
        return self.__iter__()

    def __len__(self):
        if self._is_iterable:
            raise TypeError("the length of a DataLoader over an IterableDataset is unknown")
        return len(self._index_sampler)

    def _finish(self, batch):
        """Turns a collated numpy batch into what iteration yields (see `return_list`)."""
        if self.return_list:
            return _to_tensor(batch)
        if self.feed_list is not None:
            fields = batch if isinstance(batch, (list, tuple)) else [batch]
            if len(fields) != len(self.feed_list):
                raise ValueError(
                    f"a batch has {len(fields)} fields but feed_list names "
                    f"{len(self.feed_list)} variables"
                )
            return {getattr(v, "name", v): field for v, field in zip(self.feed_list, fields)}
        return batch
