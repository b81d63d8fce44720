"""Turning a list of samples into one batch, and the batch into skiff Tensors.

    default_collate_fn([(img0, 3), (img1, 5)])  ->  [np.stack([img0, img1]), np.array([3, 5])]

Collation works on numpy only (it runs in worker processes too); `_to_tensor` is the single
place where a numpy batch becomes skiff Tensors, in the main process.
"""

import numbers
from collections.abc import Mapping, Sequence

import numpy as np

from ..tensor.creation import to_tensor

__all__ = ["default_collate_fn", "default_convert_fn"]


def _is_tensor_like(value):
    """True for objects that are not numpy arrays but expose `.numpy()` (skiff/Paddle Tensors)."""
    return not isinstance(value, np.ndarray) and callable(getattr(value, "numpy", None))


def default_collate_fn(batch):
    """Stacks a list of samples field by field into numpy batches.

    numpy arrays and Tensors -> np.stack along a new axis 0; numbers -> np.array; str/bytes ->
    list; dicts -> dict of collated values; tuples/lists -> list of collated fields.
    """
    if len(batch) == 0:
        raise ValueError("default_collate_fn got an empty batch")
    sample = batch[0]
    if isinstance(sample, np.ndarray):
        return _stack(batch)
    if _is_tensor_like(sample):
        return _stack([np.asarray(item.numpy()) for item in batch])
    if isinstance(sample, (bool, np.bool_, numbers.Number)):
        return np.array(batch)
    if isinstance(sample, (str, bytes)):
        return list(batch)
    if isinstance(sample, Mapping):
        return {key: default_collate_fn([item[key] for item in batch]) for key in sample}
    if isinstance(sample, Sequence):
        width = len(sample)
        for i, item in enumerate(batch):
            if len(item) != width:
                raise RuntimeError(
                    f"default_collate_fn: sample 0 has {width} fields but sample {i} has "
                    f"{len(item)}; every sample in a batch needs the same number of fields"
                )
        return [default_collate_fn(list(fields)) for fields in zip(*batch)]
    raise TypeError(
        "default_collate_fn handles numpy arrays, Tensors, numbers, str, dicts, lists and "
        f"tuples, but got {type(sample).__name__}"
    )


def _stack(arrays):
    shapes = {a.shape for a in arrays}
    if len(shapes) != 1:
        raise RuntimeError(
            f"default_collate_fn: cannot stack samples of different shapes "
            f"{sorted(list(s) for s in shapes)}; pad them or pass a collate_fn"
        )
    return np.stack(arrays, axis=0)


def default_convert_fn(sample):
    """The no-batching counterpart (batch_size=None): Tensors -> numpy, containers recurse."""
    if isinstance(sample, np.ndarray):
        return sample
    if _is_tensor_like(sample):
        return np.asarray(sample.numpy())
    if isinstance(sample, (str, bytes)):
        return sample
    if isinstance(sample, Mapping):
        return {key: default_convert_fn(value) for key, value in sample.items()}
    if isinstance(sample, tuple) and hasattr(sample, "_fields"):  # namedtuple
        return type(sample)(*(default_convert_fn(v) for v in sample))
    if isinstance(sample, Sequence):
        return [default_convert_fn(value) for value in sample]
    return sample


def _to_tensor(batch):
    """Converts every numpy array in a collated batch to a skiff Tensor (``to_tensor``);
    lists, tuples and dicts keep their structure."""
    return _map_arrays(batch, to_tensor)


def _map_arrays(value, fn):
    if isinstance(value, np.ndarray):
        return fn(value)
    if isinstance(value, Mapping):
        return {key: _map_arrays(v, fn) for key, v in value.items()}
    if isinstance(value, list):
        return [_map_arrays(v, fn) for v in value]
    if isinstance(value, tuple):
        items = [_map_arrays(v, fn) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value
