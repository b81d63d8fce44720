"""Data loading in Paddle's `paddle.io` API: datasets, samplers and the DataLoader; and
streams: `StreamDataset`, micro-batches of a Redis stream (`RedisStream`) decoded by a
`Schema`, with the positions exactly-once training resumes from (docs/streams.md).

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
from .redis_server import LocalRedis
from .redis_stream import RedisStream
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequenceSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .stream_dataset import StreamBatch, StreamDataset
from .stream_records import Field, RecordError, Schema
from .worker import WorkerInfo, get_worker_info

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ComposeDataset",
    "ConcatDataset",
    "DataLoader",
    "DistributedBatchSampler",
    "Dataset",
    "Field",
    "IterableDataset",
    "LocalRedis",
    "RandomSampler",
    "RecordError",
    "RedisStream",
    "Sampler",
    "Schema",
    "SequenceSampler",
    "StreamBatch",
    "StreamDataset",
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
