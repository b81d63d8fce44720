"""Collectives of skiff.distributed against numpy on 2 and 4 ranks (processes on
127.0.0.1, started by the launcher with its own etcd)."""
import pytest

from jobs import describe, run_job


@pytest.mark.parametrize("nproc", [2, 4])
def test_every_collective_and_dtype_matches_numpy(tmp_path, nproc):
    rc, output, logs = run_job(tmp_path, "collectives.py", nproc)
    assert rc == 0, describe(rc, output, logs)
    for rank in range(nproc):
        assert "all collectives match numpy" in logs[rank], describe(rc, output, logs)


def test_collective_ops_in_a_static_program_with_gradients(tmp_path):
    rc, output, logs = run_job(tmp_path, "static_program.py", 2)
    assert rc == 0, describe(rc, output, logs)
    for rank in range(2):
        for what in ("collective ops in a program", "fleet's static data parallelism"):
            assert f"rank {rank}: {what} match" in logs[rank], describe(rc, output, logs)


def test_all_reduce_from_one_element_to_64_mib(tmp_path):
    rc, output, logs = run_job(tmp_path, "big_all_reduce.py", 2)
    assert rc == 0, describe(rc, output, logs)
    assert "all_reduce up to 64 MiB matches" in logs[0], describe(rc, output, logs)
