"""A Paddle-style parameter-server script of a static program through the launcher: 2
servers and 2 trainers on 127.0.0.1 run workers/ps_fleet_static.py, which minimizes the
static CTR model (workers/ps_static.py) with fleet.distributed_optimizer and trains it
between fleet.init_worker() and fleet.stop_worker(). In sync mode the job ends with the
parameters and losses of one process training the unsplit program on the union batches
(1e-6, test_ps_program.py's reference); in async mode the loss falls. Each job is bounded
in time and leaves no process behind."""
import json
import sys
import time

import numpy as np
import pytest

from jobs import WORKERS
from ps_jobs import describe, launch

sys.path.insert(0, str(WORKERS))
import ps_ctr  # noqa: E402  (the data and constants)
import ps_static  # noqa: E402  (the static model)
from test_ps_program import check_sync_result, static_mode  # noqa: E402,F401


TIMEOUT = 60  # seconds for a whole job (3 to 5 s on 2 cores)


def run_job(tmp_path, mode, steps):
    """Launches workers/ps_fleet_static.py as 2 servers and 2 trainers; the trainers' JSON
    results by index. Fails unless the job succeeds within
    TIMEOUT and leaves no process of its group running (whatever is left is killed)."""
    log_dir, out = tmp_path / "log", tmp_path / "out"
    out.mkdir()
    start = time.monotonic()
    returncode, output, left = launch(
        ["--server_num", "2", "--trainer_num", "2", "--log_dir", log_dir,
         WORKERS / "ps_fleet_static.py", mode, steps, out], TIMEOUT)
    if output is None:
        pytest.fail(f"the {mode} job ran past {TIMEOUT} s\n{describe(log_dir)}")
    assert returncode == 0, describe(log_dir, output)
    assert not left, f"processes of the {mode} job outlived the launcher\n{describe(log_dir)}"
    assert "still running" not in output, describe(log_dir, output)  # stop_worker stopped them
    assert sorted(f.name for f in log_dir.glob("*log.*")) == [
        "serverlog.0", "serverlog.1", "workerlog.0", "workerlog.1"]
    print(f"\nfleet static {mode} 2x2, {steps} steps: {time.monotonic() - start:.1f} s")
    return {t: json.loads((out / f"trainer{t}.json").read_text()) for t in (0, 1)}


def test_sync_job_equals_one_process_on_the_union_batches(tmp_path, static_mode):
    results = run_job(tmp_path, "sync", ps_ctr.STEPS)
    # trainer 1 started from other values (its own seed) and took trainer 0's
    assert results[0]["initial"] == results[1]["initial"]
    check_sync_result([results[t] for t in sorted(results)], "fleet static sync")


def test_async_job_trains(tmp_path):
    results = run_job(tmp_path, "async", ps_ctr.STEPS)
    for t, r in results.items():
        losses = np.array(r["losses"])
        print(f"fleet static async, trainer {t}: loss {losses[:40].mean():.4f} -> "
              f"{losses[-40:].mean():.4f}")
        assert losses[-40:].mean() < losses[:40].mean() - 0.05
