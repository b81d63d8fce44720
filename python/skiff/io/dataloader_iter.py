"""The iterators behind `DataLoader.__iter__`: one in-process, one over worker processes.

The multi-process iterator keeps `prefetch_factor * num_workers` tasks in flight, hands them
to workers round-robin and yields results in task order, so batches come out in sampler order.
Workers are shut down when the iterator ends, raises, or is garbage-collected (early `break`).
"""

import multiprocessing
import os
import queue
import time
import weakref

import numpy as np

from .worker import ExceptionWrapper, IterableExhausted, _fetch_batch, _next_iterable_batch
from .worker import worker_loop

_POLL_SECONDS = 1.0
_JOIN_SECONDS = 5.0


def _mp_context():
    """fork where the platform has it (no pickling of the dataset), else the default method."""
    if "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class SingleProcessIter:
    """Loads batches in the calling process, one per `__next__`."""

    def __init__(self, loader):
        self._loader = loader
        if loader._is_iterable:
            self._samples = iter(loader.dataset)
        else:
            self._indices = iter(loader._index_sampler)

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        loader = self._loader
        if loader._is_iterable:
            batch = _next_iterable_batch(
                self._samples, loader.batch_size, loader.drop_last, loader.collate_fn
            )
            if isinstance(batch, IterableExhausted):
                raise StopIteration
        else:
            indices = next(self._indices)
            batch = _fetch_batch(loader.dataset, indices, loader._auto_collation, loader.collate_fn)
        return loader._finish(batch)


def _shutdown_workers(workers, index_queues, result_queue, done_event, grace):
    """Stops and reaps the workers; those still busy after `grace[0]` seconds are terminated."""
    done_event.set()
    for index_queue in index_queues:
        try:
            index_queue.put(None)
        except (OSError, ValueError):
            pass
    deadline = time.monotonic() + grace[0]
    for worker in workers:
        worker.join(timeout=max(0.0, deadline - time.monotonic()))
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
            worker.join()
    for q in index_queues + [result_queue]:
        q.cancel_join_thread()
        q.close()


class MultiProcessIter:
    """Loads batches in `loader.num_workers` worker processes, yielding them in order."""

    def __init__(self, loader):
        self._loader = loader
        self._is_iterable = loader._is_iterable
        self._indices = None if self._is_iterable else iter(loader._index_sampler)
        num_workers = loader.num_workers
        base_seed = int(np.random.randint(0, 2**31 - 1))  # reproducible under np.random.seed
        ctx = _mp_context()
        self._done_event = ctx.Event()
        self._result_queue = ctx.Queue()
        self._index_queues, self._workers = [], []
        for worker_id in range(num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            worker = ctx.Process(
                target=worker_loop,
                args=(
                    loader.dataset,
                    self._is_iterable,
                    index_queue,
                    self._result_queue,
                    self._done_event,
                    loader.collate_fn,
                    loader._auto_collation,
                    loader.batch_size,
                    loader.drop_last,
                    base_seed + worker_id,
                    worker_id,
                    num_workers,
                    loader.worker_init_fn,
                    os.getpid(),
                ),
                daemon=True,
            )
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._grace = [_JOIN_SECONDS]  # cut to 0 when a worker is stuck or dead
        self._finalizer = weakref.finalize(
            self,
            _shutdown_workers,
            self._workers,
            self._index_queues,
            self._result_queue,
            self._done_event,
            self._grace,
        )
        self._worker_active = [True] * num_workers
        self._next_worker = 0
        self._sent = 0  # tasks handed out
        self._yielded = 0  # next task id to yield
        self._results = {}  # task id -> (worker id, payload) for results that came early
        self._sampler_done = False
        self._finished = False
        for _ in range(loader.prefetch_factor * num_workers):
            self._send_task()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def _send_task(self):
        """Hands the next task to the next active worker; no-op once there is nothing to send."""
        if self._sampler_done or not any(self._worker_active):
            return
        indices = None
        if not self._is_iterable:
            try:
                indices = next(self._indices)
            except StopIteration:
                self._sampler_done = True
                return
        while not self._worker_active[self._next_worker]:
            self._next_worker = (self._next_worker + 1) % len(self._workers)
        self._index_queues[self._next_worker].put((self._sent, indices))
        self._next_worker = (self._next_worker + 1) % len(self._workers)
        self._sent += 1

    def _shutdown(self, grace=_JOIN_SECONDS):
        self._finished = True
        self._grace[0] = grace
        self._finalizer()

    def _receive(self):
        """Waits for one result; raises if a worker died or `timeout` passed without one."""
        timeout = self._loader.timeout
        deadline = time.monotonic() + timeout if timeout > 0 else None
        while True:
            wait = _POLL_SECONDS
            if deadline is not None:
                wait = min(wait, max(0.0, deadline - time.monotonic()))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                pass
            dead = [w for w in self._workers if not w.is_alive()]
            if dead:
                self._shutdown(grace=0.0)
                w = dead[0]
                raise RuntimeError(
                    f"DataLoader worker (pid {w.pid}) exited unexpectedly with exit code "
                    f"{w.exitcode}; a negative code is the signal that killed it"
                )
            if deadline is not None and time.monotonic() >= deadline:
                self._shutdown(grace=0.0)
                raise RuntimeError(f"DataLoader timed out: no batch within {timeout} seconds")

    def __next__(self):
        while True:
            if self._finished or self._yielded == self._sent:
                self._shutdown()
                raise StopIteration
            if self._yielded not in self._results:
                task_id, worker_id, payload = self._receive()
                if isinstance(payload, IterableExhausted):
                    self._worker_active[worker_id] = False
                self._results[task_id] = payload
                continue
            payload = self._results.pop(self._yielded)
            self._yielded += 1
            self._send_task()
            if isinstance(payload, IterableExhausted):
                continue
            if isinstance(payload, ExceptionWrapper):
                self._shutdown()
                payload.reraise()
            return self._loader._finish(payload)
