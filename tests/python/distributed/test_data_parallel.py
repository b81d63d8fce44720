"""DataParallel on 2 ranks gives the parameters of one process training on the global
batch (float64 to 1e-10, float32 to 1e-5), eager and under to_static."""
import pytest

from jobs import describe, run_job


@pytest.mark.parametrize("mode,dtype", [("eager", "float64"), ("to_static", "float64"),
                                        ("eager", "float32")])
def test_data_parallel_matches_one_process(tmp_path, mode, dtype):
    rc, output, logs = run_job(tmp_path, "data_parallel.py", 2, mode, dtype)
    assert rc == 0, describe(rc, output, logs)
    for rank in range(2):
        assert "DataParallel matches the single process" in logs[rank], describe(rc, output, logs)
