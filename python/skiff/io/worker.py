"""What runs inside a DataLoader worker process, and `get_worker_info()` for datasets.

A worker reads tasks `(task_id, indices)` from its own index queue (`indices` is None for an
IterableDataset: "produce your next batch"), and puts `(task_id, worker_id, payload)` on the
shared result queue, where payload is a collated batch, an `ExceptionWrapper`, or
`IterableExhausted`. A `None` task, a set `done_event` or a dead parent ends the loop.
"""

import os
import queue
import random
import sys
import traceback

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info"]

_POLL_SECONDS = 1.0


class WorkerInfo:
    """Facts about the current worker: `id`, `num_workers`, `seed`, `dataset` (its copy)."""

    def __init__(self, id, num_workers, seed, dataset):
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __repr__(self):
        return f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed})"


_worker_info = None


def get_worker_info():
    """The `WorkerInfo` of this DataLoader worker process; None in the main process."""
    return _worker_info


class IterableExhausted:
    """Sent by a worker whose IterableDataset iterator has ended."""


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process with its traceback text."""

    def __init__(self, exc, where):
        self.exc_type = type(exc)
        self.where = where
        self.text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))

    def reraise(self):
        """Raises an exception of the original type whose message holds the worker's traceback."""
        message = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.text}"
        if self.exc_type is KeyError:  # KeyError would print the message as a quoted repr
            message = _KeyErrorMessage(message)
        try:
            error = self.exc_type(message)
        except Exception:
            raise RuntimeError(message) from None
        raise error


class _KeyErrorMessage(str):
    def __repr__(self):
        return str(self)


def _seed_worker(seed):
    random.seed(seed)
    np.random.seed(seed % (2**32))


def _fetch_batch(dataset, indices, auto_collation, collate_fn):
    if auto_collation:
        return collate_fn([dataset[i] for i in indices])
    return collate_fn(dataset[indices])


def _next_iterable_batch(iterator, batch_size, drop_last, collate_fn):
    """The next batch from `iterator`, or IterableExhausted; batch_size None means one sample."""
    if batch_size is None:
        try:
            return collate_fn(next(iterator))
        except StopIteration:
            return IterableExhausted()
    samples = []
    for sample in iterator:
        samples.append(sample)
        if len(samples) == batch_size:
            break
    if not samples or (drop_last and len(samples) < batch_size):
        return IterableExhausted()
    return collate_fn(samples)


def worker_loop(
    dataset,
    is_iterable,
    index_queue,
    result_queue,
    done_event,
    collate_fn,
    auto_collation,
    batch_size,
    drop_last,
    seed,
    worker_id,
    num_workers,
    worker_init_fn,
    parent_pid,
):
    """Body of a worker process: seed, run worker_init_fn, then serve tasks until told to stop."""
    global _worker_info
    try:
        _seed_worker(seed)
        _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
        where = f"in DataLoader worker {worker_id} (pid {os.getpid()})"
        init_error = None
        try:
            if worker_init_fn is not None:
                worker_init_fn(worker_id)
        except Exception as exc:  # reported with the first task
            init_error = ExceptionWrapper(exc, where + " in worker_init_fn")
        iterator = None
        exhausted = False
        while not done_event.is_set():
            try:
                task = index_queue.get(timeout=_POLL_SECONDS)
            except queue.Empty:
                if os.getppid() != parent_pid:
                    break  # the main process died; nobody will read our results
                continue
            if task is None:
                break
            task_id, indices = task
            if init_error is not None:
                payload = init_error
            elif exhausted:
                payload = IterableExhausted()
            else:
                try:
                    if is_iterable:
                        if iterator is None:
                            iterator = iter(dataset)
                        payload = _next_iterable_batch(iterator, batch_size, drop_last, collate_fn)
                        exhausted = isinstance(payload, IterableExhausted)
                    else:
                        payload = _fetch_batch(dataset, indices, auto_collation, collate_fn)
                except Exception as exc:
                    payload = ExceptionWrapper(exc, where)
            result_queue.put((task_id, worker_id, payload))
    except KeyboardInterrupt:
        pass  # the main process handles Ctrl-C and shuts the workers down
    # The main process sends None only once it wants no more results: do not let exit wait
    # for the queue's feeder thread to push results into a pipe nobody reads.
    result_queue.cancel_join_thread()
    result_queue.close()
    sys.stdout.flush()
