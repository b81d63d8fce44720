"""Data loading in Paddle's `paddle.io` API: datasets, samplers and the DataLoader.

Everything here works on numpy; only `DataLoader` turns batches into skiff Tensors, and only
when the compiled module skiff._C can be imported (otherwise batches stay numpy arrays).
"""

from .batch_reader import batch  # noqa: F401  (skiff.batch, as paddle.batch)
from .collate import default_collate_fn, default_convert_fn
from .dataloader import DataLoader
from .distributed_sampler import DistributedBatchSampler
from .dataset import (
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequenceSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .worker import WorkerInfo, get_worker_info

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ComposeDataset",
    "ConcatDataset",
    "DataLoader",
    "DistributedBatchSampler",
    "Dataset",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequenceSampler",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "default_collate_fn",
    "default_convert_fn",
    "get_worker_info",
    "random_split",
]
