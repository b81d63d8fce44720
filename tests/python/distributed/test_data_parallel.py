"""DataParallel on 2 ranks gives the parameters of one process training on the global
batch (float64 to 1e-10, float32 to 1e-5), eager, under to_static and compiled."""
import subprocess
import sys

import pytest

from jobs import WORKERS, describe, job_env, run_job


@pytest.mark.parametrize("mode,dtype", [("eager", "float64"), ("to_static", "float64"),
                                        ("eager", "float32")])
def test_data_parallel_matches_one_process(tmp_path, mode, dtype):
    rc, output, logs = run_job(tmp_path, "data_parallel.py", 2, mode, dtype)
    assert rc == 0, describe(rc, output, logs)
    for rank in range(2):
        assert "DataParallel matches the single process" in logs[rank], describe(rc, output, logs)


def test_compiled_training_program_runs_data_parallel(tmp_path):
    """fleet's static data parallelism compiled by skiff.jit.compile: the executable joins
    the job from the launcher's environment, libmodel.so runs in a worker on the
    communicator skiff.distributed made; both match one process on the global batch."""
    prepare = subprocess.run([sys.executable, str(WORKERS / "compiled_training.py"), "prepare",
                              str(tmp_path)], env=job_env(), capture_output=True, text=True,
                             timeout=600)
    assert prepare.returncode == 0, prepare.stdout + prepare.stderr
    rc, output, logs = run_job(tmp_path, "compiled_training.py", 2, "train", tmp_path)
    assert rc == 0, describe(rc, output, logs)
    for rank in range(2):
        for what in ("the compiled executable", "libmodel.so in this process"):
            assert f"rank {rank}: {what} matches one process" in logs[rank], \
                describe(rc, output, logs)
