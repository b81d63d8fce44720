"""A user's mistakes with distributed training end in clear errors, bounded in time."""
import os
import pathlib
import subprocess
import sys
import time

from jobs import WORKERS, describe, job_env, run_job

CHECKOUT = pathlib.Path(__file__).resolve().parents[3]


def _launch(*args):
    return subprocess.run([sys.executable, "-m", "skiff.distributed.launch", *args],
                          capture_output=True, text=True, timeout=60, env=job_env())


def test_nnodes_min_above_max_is_refused():
    done = _launch("--nnodes", "3:2", str(WORKERS / "collectives.py"))
    assert done.returncode == 2
    assert "--nnodes 3:2: needs 1 <= MIN <= MAX" in done.stderr


def test_unreachable_etcd_is_named():
    from skiff.distributed.etcd_server import free_port
    port = free_port()
    start = time.monotonic()
    done = _launch("--etcd", f"127.0.0.1:{port}", str(WORKERS / "collectives.py"))
    assert done.returncode == 2
    assert f"cannot reach etcd at 127.0.0.1:{port}" in done.stderr, done.stderr
    assert time.monotonic() - start < 30


def test_tensors_of_different_shapes_fail_on_every_rank(tmp_path):
    rc, output, logs = run_job(tmp_path, "mismatch.py", 2, launcher_args=["--comm_timeout", "10"])
    assert rc == 3, describe(rc, output, logs)
    for rank in range(2):
        assert (f"rank {rank} caught: all_reduce on rank {rank} of 2: the ranks called "
                "different collectives or passed different tensors (rank 0: all_reduce of 3 "
                "float32 elements, sum; rank 1: all_reduce of 5 float32 elements, sum)"
                in logs[rank]), describe(rc, output, logs)


def test_a_dead_peer_is_a_communication_error_not_a_hang(tmp_path):
    rc, output, logs = run_job(tmp_path, "dead_peer.py", 2, launcher_args=["--comm_timeout", "20"])
    # The job's exit code is the first failing worker's: rank 0, killed by signal 9.
    assert rc == 128 + 9, describe(rc, output, logs)
    assert "launch: worker 0 exited with code -9" in output
    assert "rank 1 caught CommunicationError: all_reduce on rank 1 of 2" in logs[1], \
        describe(rc, output, logs)


def test_skiff_launch_is_the_launcher():
    skiff_cli = pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", CHECKOUT / "build")) / "bin" / "skiff"
    done = subprocess.run([str(skiff_cli), "launch", "--nnodes", "3:2", str(WORKERS / "x.py")],
                          capture_output=True, text=True, timeout=60, env=job_env())
    assert done.returncode == 2, done.stderr
    assert "--nnodes 3:2: needs 1 <= MIN <= MAX" in done.stderr


def test_mismatched_world_sizes_fail_naming_the_rendezvous(tmp_path):
    """Two workers of one job that disagree on the world size: both stop at once, each
    naming the two sizes."""
    from skiff.distributed.etcd_server import LocalEtcd
    with LocalEtcd() as etcd:
        procs = []
        for rank, size in [(0, 2), (1, 3)]:
            env = job_env()
            env.update({"SKIFF_ETCD": etcd.endpoint, "SKIFF_JOB_ID": "sizes",
                        "SKIFF_RANK": str(rank), "SKIFF_WORLD_SIZE": str(size),
                        "SKIFF_COMM_TIMEOUT": "5"})
            procs.append(subprocess.Popen([sys.executable, str(WORKERS / "world_size.py")],
                                          env=env, stdout=subprocess.PIPE, text=True))
        outputs = [p.communicate(timeout=60)[0] for p in procs]
    assert [p.returncode for p in procs] == [5, 5], outputs
    assert ("rank 1 caught: connecting rank 1 under '/skiff/sizes/rendezvous/epoch0/ring0/': "
            "this rank was started for a world of 3 ranks but rank 0 for a world of 2" in
            outputs[1]), outputs
    assert ("rank 0 caught: connecting rank 0 under '/skiff/sizes/rendezvous/epoch0/ring0/': "
            "this rank was started for a world of 2 ranks but rank 1 for a world of 3" in
            outputs[0]), outputs
