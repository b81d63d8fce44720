"""DataLoader with worker processes: order, errors, seeding, sharding and shutdown."""

import faulthandler
import gc
import multiprocessing
import os
import pathlib
import random
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from skiff.io import DataLoader, Dataset, IterableDataset, get_worker_info

import skiff  # noqa: E402  (from the build tree conftest.py put first on sys.path)

PYTHON_ROOT = pathlib.Path(skiff.__file__).parent.parent


@pytest.fixture(autouse=True)
def hang_guard():
    """Aborts the run with all stacks printed if a test hangs instead of failing."""
    faulthandler.dump_traceback_later(120, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


class Jittery(Dataset):
    """Item i is (i as float32 [3], i); items take random short times so workers finish
    out of order. `fail_at` raises ValueError there; `kill_at` kills the worker there."""

    def __init__(self, n, fail_at=None, kill_at=None, sleep_at=None):
        self.n, self.fail_at, self.kill_at, self.sleep_at = n, fail_at, kill_at, sleep_at

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(random.random() * 0.01)
        if i == self.fail_at:
            raise ValueError(f"bad sample {i}")
        if i == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        if i == self.sleep_at:
            time.sleep(3)
        return np.full([3], i, "float32"), i


class Noise(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return np.random.randint(0, 2**31 - 1)


class Sharded(IterableDataset):
    """0..n-1, each worker reading every num_workers-th value."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(range(start, self.n, step))


def labels_of(loader, as_numpy):
    return np.concatenate([as_numpy(batch[1]) for batch in loader]).tolist()


def test_workers_preserve_order(as_numpy):
    loader = DataLoader(Jittery(50), batch_size=3, num_workers=3, prefetch_factor=2)
    assert labels_of(loader, as_numpy) == list(range(50))
    single = [as_numpy(b[0]) for b in DataLoader(Jittery(50), batch_size=3)]
    multi = [as_numpy(b[0]) for b in loader]
    assert len(single) == len(multi) == 17
    for a, b in zip(single, multi):
        np.testing.assert_array_equal(a, b)


def test_shuffled_epochs_reproducible_with_workers(as_numpy):
    def epoch(seed):
        np.random.seed(seed)
        return labels_of(DataLoader(Jittery(30), batch_size=4, shuffle=True, num_workers=2),
                         as_numpy)

    first = epoch(11)
    assert sorted(first) == list(range(30)) and first != list(range(30))
    assert epoch(11) == first


def test_worker_error_reraised_with_worker_traceback(as_numpy):
    loader = DataLoader(Jittery(20, fail_at=7), batch_size=2, num_workers=2)
    seen = []
    with pytest.raises(ValueError) as info:
        for batch in loader:
            seen.extend(as_numpy(batch[1]).tolist())
    assert seen == list(range(6))  # the batches before the failing one arrive first
    message = str(info.value)
    assert "DataLoader worker" in message and "bad sample 7" in message
    assert "__getitem__" in message  # the worker's traceback


def test_worker_key_error_and_init_fn_error():
    class Missing(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {}["absent"]

    with pytest.raises(KeyError, match="absent"):
        list(DataLoader(Missing(), num_workers=1))

    def broken_init(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")

    with pytest.raises(RuntimeError, match="worker_init_fn"):
        list(DataLoader(Jittery(4), num_workers=2, worker_init_fn=broken_init))


def test_worker_init_fn_and_worker_seeds(as_numpy):
    def draws(seed):
        np.random.seed(seed)
        return [int(as_numpy(b)[0]) for b in DataLoader(Noise(), batch_size=1, num_workers=2)]

    first = draws(5)
    assert first[0] != first[1]  # items 0 and 1 come from workers seeded differently
    assert draws(5) == first
    assert draws(6) != first

    def init(worker_id):
        np.random.seed(1000 + worker_id)

    values = [int(as_numpy(b)[0]) for b in DataLoader(Noise(), num_workers=2, worker_init_fn=init)]
    np.random.seed(1000)
    assert values[0] == np.random.randint(0, 2**31 - 1)


def test_iterable_dataset_sharded_across_workers(as_numpy):
    loader = DataLoader(Sharded(23), batch_size=4, num_workers=3)
    values = [as_numpy(b).tolist() for b in loader]
    assert sorted(v for batch in values for v in batch) == list(range(23))
    assert values[0] == [0, 3, 6, 9] and values[1] == [1, 4, 7, 10]
    dropped = [as_numpy(b) for b in DataLoader(Sharded(23), batch_size=4, drop_last=True,
                                              num_workers=3)]
    # each worker drops its own short tail: 8, 8 and 7 values give 2 + 2 + 1 full batches
    assert all(len(b) == 4 for b in dropped) and len(dropped) == 5


def test_early_break_shuts_down_and_reaps_workers():
    before = {p.pid for p in multiprocessing.active_children()}
    loader = DataLoader(Jittery(400), batch_size=2, num_workers=3)
    iterator = iter(loader)
    next(iterator)
    workers = {p.pid for p in multiprocessing.active_children()} - before
    assert len(workers) == 3
    start = time.monotonic()
    del iterator
    gc.collect()
    assert time.monotonic() - start < 8
    for pid in workers:
        assert not os.path.exists(f"/proc/{pid}"), f"worker {pid} still exists (zombie?)"
    for batch in loader:
        break  # the same through a for loop
    assert {p.pid for p in multiprocessing.active_children()} <= before


def test_killed_worker_is_reported():
    loader = DataLoader(Jittery(20, kill_at=5), batch_size=1, num_workers=2)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        list(loader)
    assert time.monotonic() - start < 20


def test_timeout_raises_instead_of_waiting():
    loader = DataLoader(Jittery(4, sleep_at=0), batch_size=1, num_workers=1, timeout=0.5)
    start = time.monotonic()
    with pytest.raises(RuntimeError, match="timed out"):
        list(loader)
    assert time.monotonic() - start < 10


def test_interpreter_exit_with_a_live_iterator_leaves_no_workers():
    script = textwrap.dedent(
        f"""
        import sys
        sys.path.insert(0, {str(PYTHON_ROOT)!r})
        import multiprocessing
        import numpy as np
        from skiff.io import DataLoader, TensorDataset
        it = iter(DataLoader(TensorDataset([np.zeros([64, 2])]), batch_size=2, num_workers=2))
        next(it)
        print(" ".join(str(p.pid) for p in multiprocessing.active_children()))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    pids = done.stdout.split()
    assert len(pids) == 2
    time.sleep(0.5)
    for pid in pids:
        assert not os.path.exists(f"/proc/{pid}"), f"worker {pid} outlived the interpreter"
