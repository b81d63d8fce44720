"""Exactly-once online training and idempotent streaming inference, killed with SIGKILL at
moments picked by the job's progress and restarted; and redis-server itself restarted (with
its append-only file) under the trainer."""
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
import redis

import skiff
from skiff.io import LocalRedis

HERE = pathlib.Path(__file__).resolve().parent
WORKER = HERE / "workers" / "ctr_stream.py"
RECORDS = 200_000

sys.path.insert(0, str(HERE / "workers"))
from ctr_stream import model, produce  # noqa: E402


@pytest.fixture(scope="module")
def server():
    with LocalRedis(appendonly=True) as s:
        produce(s.address, "clicks", RECORDS, bad_every=997)
        yield s


def start(*args):
    return subprocess.Popen([sys.executable, str(WORKER), *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def entries_read(server, stream, group):
    host, port = server.address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    try:
        for g in client.xinfo_groups(stream):
            if g["name"].decode() == group:
                return int(g["entries-read"] or 0)
    except redis.ConnectionError:
        return 0
    finally:
        client.close()
    return 0


def finish(proc, timeout=600):
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out
    return out


def train_undisturbed(server, tmp_path):
    out = tmp_path / "calm.npz"
    finish(start("train", server.address, "clicks", "calm", tmp_path / "calm", out))
    return np.load(out)


def assert_same_model(got, calm, bad):
    assert int(got["records"]) == RECORDS - bad, int(got["records"])
    assert int(got["records"]) == int(calm["records"])
    for name in calm.files:
        if name in ("records", "steps", "dead"):
            continue
        np.testing.assert_allclose(got[name], calm[name], rtol=0, atol=1e-6, err_msg=name)


def test_sigkill_five_times_and_a_redis_restart_change_nothing(server, tmp_path):
    bad = RECORDS // 997
    calm = train_undisturbed(server, tmp_path)
    assert int(calm["dead"]) == bad

    # The trainer killed at 5 moments of its progress, each a little after a fraction of
    # the stream was read, and restarted each time.
    rng = random.Random(5)
    out = tmp_path / "chaos.npz"
    kills = 0
    for fraction in (0.1, 0.3, 0.45, 0.6, 0.8):
        proc = start("train", server.address, "clicks", "chaos", tmp_path / "chaos", out)
        deadline = time.monotonic() + 300
        while (entries_read(server, "clicks", "chaos") < fraction * RECORDS
               and proc.poll() is None and time.monotonic() < deadline):
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.3))
        assert proc.poll() is None, proc.communicate()[0]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        kills += 1
    finish(start("train", server.address, "clicks", "chaos", tmp_path / "chaos", out))
    assert kills == 5
    assert_same_model(np.load(out), calm, bad)

    # redis-server killed and restarted from its append-only file under the trainer.
    out = tmp_path / "restart.npz"
    proc = start("train", server.address, "clicks", "restart", tmp_path / "restart", out)
    while entries_read(server, "clicks", "restart") < 0.4 * RECORDS and proc.poll() is None:
        time.sleep(0.02)
    server.restart()
    finish(proc)
    assert_same_model(np.load(out), calm, bad)


def test_a_scorer_killed_and_restarted_writes_one_result_per_record(server, tmp_path):
    n = 20_000
    produce(server.address, "to_score", n)
    net = model()
    prefix = str(tmp_path / "ctr")
    skiff.jit.save(net, prefix, input_spec=[skiff.static.InputSpec([None, 26], "int64", "ids")])
    for fraction in (0.2, 0.5, 0.7):
        proc = start("score", server.address, "to_score", "scorers", prefix, "scores")
        while (entries_read(server, "to_score", "scorers") < fraction * n
               and proc.poll() is None):
            time.sleep(0.01)
        assert proc.poll() is None, proc.communicate()[0]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    finish(start("score", server.address, "to_score", "scorers", prefix, "scores"))
    host, port = server.address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    results = client.xrange("scores")
    inputs = client.xrange("to_score")
    assert len(results) == n
    ids = [fields[b"id"] for _, fields in results]
    assert len(set(ids)) == n and set(ids) == {eid for eid, _ in inputs}
    # The results are the model's: a sample recomputed here.
    by_id = {fields[b"id"]: np.frombuffer(fields[b"result"], np.float32) for _, fields in results}
    sample = inputs[::997]
    x = np.stack([np.frombuffer(f[b"ids"], np.int64) for _, f in sample])
    expected = net(skiff.to_tensor(x)).numpy().astype(np.float32)
    got = np.stack([by_id[eid] for eid, _ in sample])
    np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6)


def start_data_parallel(server, tmp_path, stream, group):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    return subprocess.Popen(
        [sys.executable, "-m", "skiff.distributed.launch", "--nproc_per_node", "2",
         "--log_dir", str(tmp_path / "logs"), "--max_restarts", "0", str(WORKER), "train-dp",
         server.address, stream, group, str(tmp_path / "ckpt"), str(tmp_path / "audit")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        start_new_session=True)


def test_data_parallel_ranks_apply_each_record_once_across_kills(server, tmp_path):
    """Two ranks, each a consumer of the group; the whole job killed with SIGKILL twice
    and restarted. Every entry ends applied once, a dead letter, or pending (fetched by a
    rank when the other's stream ended: never applied, a later run's); the audit of the
    steps in the final model has no record twice."""
    n, bad_every = 40_000, 997
    produce(server.address, "dp", n, bad_every=bad_every)
    (tmp_path / "audit").mkdir()
    (tmp_path / "ckpt").mkdir()
    for fraction in (0.3, 0.7):
        job = start_data_parallel(server, tmp_path, "dp", "dp")
        while entries_read(server, "dp", "dp") < fraction * n and job.poll() is None:
            time.sleep(0.02)
        assert job.poll() is None, job.communicate()[0]
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
    job = start_data_parallel(server, tmp_path, "dp", "dp")
    out = job.communicate(timeout=600)[0]
    assert job.returncode == 0, out
    state = skiff.load(str(tmp_path / "ckpt" / "stream.ckpt"), return_numpy=True)
    applied = sum(int(r) for r in state["records"])
    host, port = server.address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    pending = client.xpending("dp", "dp")["pending"]
    dead = client.xlen("dp:dead")
    assert dead == n // bad_every
    print(f"data parallel: {applied} applied, {dead} dead letters, {pending} pending")
    assert applied + dead + pending == n, (applied, dead, pending)
    assert pending <= 2 * 128 * 4, pending  # at most a few batches of the last step
    # The steps in the final model: each rank's last log of each step up to the final one.
    final = {}
    for log in (tmp_path / "audit").glob("rank*.log"):
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            if entry["step"] <= int(state["steps"]):
                final[(log.name, entry["step"])] = entry["ids"]
    ids = [i for step_ids in final.values() for i in step_ids]
    assert len(ids) == len(set(ids)) == applied
