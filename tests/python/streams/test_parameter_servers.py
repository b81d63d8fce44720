"""Online training on parameter servers with exactly-once updates: two trainers (each a
consumer of the group) and two servers, the trainers SIGKILLed at moments picked by the
job's progress, once together with the servers; every entry ends applied in exactly one
step of the final tables or a dead letter."""
import json
import os
import pathlib
import random
import signal
import subprocess
import sys
import time

import numpy as np
import redis

import skiff
from skiff.distributed import ps

HERE = pathlib.Path(__file__).resolve().parent
WORKER = HERE / "workers" / "ctr_stream.py"
sys.path.insert(0, str(HERE / "workers"))
sys.path.insert(0, str(HERE.parent / "distributed"))
from ctr_stream import VOCAB, loss_fn, produce, ps_model, records  # noqa: E402
from ps_jobs import PsJob  # noqa: E402

RECORDS, BAD_EVERY, TRAINERS = 40_000, 997, 2


def entries_read(client, stream, group):
    for g in client.xinfo_groups(stream):
        if g["name"].decode() == group:
            return int(g["entries-read"] or 0)
    return 0


def start_trainers(job, tmp_path, address):
    env = dict(job.env, PADDLE_PSERVERS_IP_PORT_LIST=",".join(job.endpoints),
               PADDLE_TRAINERS_NUM=str(TRAINERS))
    trainers = []
    for t in range(TRAINERS):
        with open(tmp_path / f"trainer{t}.log", "ab") as log:
            trainers.append(subprocess.Popen(
                [sys.executable, str(WORKER), "train-ps", address, "clicks", "ps",
                 str(tmp_path / "ckpt"), str(tmp_path / "audit")],
                env=dict(env, PADDLE_TRAINER_ID=str(t)), stdout=log, stderr=subprocess.STDOUT))
    return trainers


def logs(tmp_path, job):
    trainer_logs = "\n".join(f"--- {f.name} ---\n{f.read_text(errors='replace')[-3000:]}"
                             for f in sorted(tmp_path.glob("trainer*.log")))
    return trainer_logs + "\n" + job.logs()


def final_steps(audit, steps):
    """{(trainer, step): entry IDs} of the steps up to ``steps`` in the audit logs: each
    trainer's last log of each (a step redone after a crash is logged again)."""
    final = {}
    for log in audit.glob("rank*.log"):
        for line in log.read_text().splitlines():
            entry = json.loads(line)
            if entry["step"] <= steps:
                final[(int(log.stem[4:]), entry["step"])] = entry["ids"]
    return final


def replayed(final, steps, client, tmp_path):
    """(dense parameters, embedding rows of every id) after the ``final`` steps applied by
    one trainer on a fresh server: each step the trainers' batches' losses averaged, as
    the servers average the trainers' gradients."""
    order = {eid.decode(): i for i, (eid, _) in enumerate(client.xrange("clicks"))}
    ids, labels = records(RECORDS)
    job = PsJob(tmp_path / "replay", shards=1)
    try:
        net, trainer = ps_model(ps.Connection(job.endpoints, 0, 1, mode="sync"))
        for step in range(1, steps + 1):
            loss = None
            for t in range(TRAINERS):
                rows = [order[e] for e in final.get((t, step), [])]
                if rows:
                    part = loss_fn(net, {"ids": ids[rows], "label": labels[rows]}) / TRAINERS
                    loss = part if loss is None else loss + part
            if loss is not None:
                loss.backward()
            trainer.step()
        return state_of(net)
    finally:
        job.kill()


def state_of(net):
    dense = [p.numpy() for p in net.parameters() if not p.stop_gradient]
    return dense, net.embedding.pull(np.arange(VOCAB, dtype=np.int64))


def test_trainers_and_servers_killed_apply_each_record_once(redis_server, tmp_path):
    produce(redis_server.address, "clicks", RECORDS, bad_every=BAD_EVERY)
    host, port = redis_server.address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    (tmp_path / "audit").mkdir()
    rng = random.Random(5)
    job = PsJob(tmp_path / "servers", shards=2, checkpoints=tmp_path / "server_ckpt",
                checkpoint_secs=0.5)
    try:
        for fraction, servers_too in ((0.2, False), (0.45, True), (0.7, False)):
            trainers = start_trainers(job, tmp_path, redis_server.address)
            deadline = time.monotonic() + 300
            while entries_read(client, "clicks", "ps") < fraction * RECORDS:
                assert all(t.poll() is None for t in trainers), logs(tmp_path, job)
                assert time.monotonic() < deadline, logs(tmp_path, job)
                time.sleep(0.02)
            for t in rng.sample(trainers, TRAINERS):
                t.send_signal(signal.SIGKILL)
                time.sleep(rng.uniform(0, 0.2))
            for t in trainers:
                t.wait()
            if servers_too:
                for shard in range(2):
                    job.restart_server(shard)  # SIGKILL, then from its own checkpoint
        trainers = start_trainers(job, tmp_path, redis_server.address)
        for t in trainers:
            assert t.wait(timeout=300) == 0, logs(tmp_path, job)
        state = skiff.load(str(tmp_path / "ckpt" / "stream.ckpt"))
        reader = ps.Connection(job.endpoints, 0, TRAINERS, mode="sync", barrier_timeout=120.0)
        got = state_of(ps_model(reader)[0])
    finally:
        job.kill()
    applied = sum(int(r) for r in state["records"])
    dead = client.xlen("clicks:dead")
    pending = client.xpending("clicks", "ps")["pending"]
    print(f"parameter servers: {applied} applied in {state['steps']} steps, {dead} dead "
          f"letters, {pending} pending")
    assert dead == RECORDS // BAD_EVERY
    assert pending == 0  # every trainer's stream ended: all applied and acknowledged
    assert applied + dead == RECORDS
    final = final_steps(tmp_path / "audit", int(state["steps"]))
    ids = [i for step_ids in final.values() for i in step_ids]
    assert len(ids) == len(set(ids)) == applied
    # The servers' tables are those steps applied once each, nothing more.
    want = replayed(final, int(state["steps"]), client, tmp_path)
    for name, g, w in zip(["fc1.w", "fc1.b", "fc2.w", "fc2.b"], got[0], want[0]):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-5, err_msg=name)
    np.testing.assert_allclose(got[1], want[1], rtol=0, atol=1e-5, err_msg="embedding rows")
    client.close()


def test_async_servers_are_refused_clearly(redis_server, tmp_path):
    from skiff.distributed import ps
    from skiff.io import RedisStream, StreamDataset
    from skiff.streams import OnlineTrainer
    job = PsJob(tmp_path / "servers", shards=1)
    try:
        ps.init(job.endpoints, 0, 1, mode="async")
        net = skiff.nn.Linear(2, 1)
        source = RedisStream("s", redis_server.address)
        dataset = StreamDataset(source, schema={"x": ("float32", [2])})
        try:
            OnlineTrainer(net, ps.Trainer(net), lambda m, b: None, dataset, tmp_path / "ck")
            raise AssertionError("an async job was taken")
        except ValueError as e:
            assert "sync mode" in str(e) and "'async'" in str(e), e
    finally:
        ps.shutdown()
        job.kill()
