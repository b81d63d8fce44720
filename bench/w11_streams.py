"""W11: online training and streaming inference from a Redis stream, skiff beside the
pipeline a user would write instead (PyTorch + redis-py), in one run on 127.0.0.1.

  training   W5's CTR model (26 fields looked up in one 1M x 16 embedding table with sparse
             gradients, concatenated, MLP 416-256-1, BCE with logits, SGD), micro-batches of
             512 from a stream of RECORDS records, a checkpoint and the acknowledgements every
             50 steps: skiff's OnlineTrainer over StreamDataset, and the same loop in
             PyTorch (XREADGROUP, numpy decoding, torch.save, XACK). records/s; and the
             latency from a record's write to the end of the step that applies it, with a
             producer writing RATE records/s (p50 / p99).
  inference  the same model scoring the stream: skiff's StreamScorer (one result per record
             into an output stream, idempotent) records/s; and in Spark (local[2]) a
             DataFrame of the records scored by skiff's Arrow UDF and by a PyTorch UDF in
             the same job (mapInArrow), records/s.

    PYTHONPATH=build/python .venv/bin/python bench/w11_streams.py [--records 200000]
"""
import argparse
import os
import sys
import tempfile
import threading
import time

import numpy as np
import redis
import torch

import skiff
from skiff.io import LocalRedis, RedisStream, Schema, StreamDataset
from skiff.streams import OnlineTrainer, StreamScorer

FIELDS, VOCAB, DIM, HIDDEN, BATCH, CHECKPOINT_EVERY = 26, 1_000_000, 16, 256, 512, 50
SCHEMA = Schema({"ids": ("int64", [FIELDS]), "label": ("float32", []), "t": ("float64", [])})


def produce(address, stream, n, rate=None):
    """n records (ids, label, write time in seconds); at `rate` records/s when given."""
    host, port = address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    rng = np.random.default_rng(0)
    ids = rng.integers(0, VOCAB, (n, FIELDS), dtype=np.int64)
    labels = (ids[:, 0] % 3 == 0).astype(np.float32)
    start = time.perf_counter()
    chunk = 64 if rate else 2000
    for i0 in range(0, n, chunk):
        if rate:
            wait = start + i0 / rate - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
        pipe = client.pipeline(transaction=False)
        now = time.time()
        for i in range(i0, min(n, i0 + chunk)):
            pipe.xadd(stream, SCHEMA.encode(ids=ids[i], label=labels[i], t=now))
        pipe.execute()
    client.close()


class SkiffCTR(skiff.nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = skiff.nn.Embedding(VOCAB, DIM, sparse=True)
        self.fc1 = skiff.nn.Linear(FIELDS * DIM, HIDDEN)
        self.fc2 = skiff.nn.Linear(HIDDEN, 1)

    def forward(self, ids):
        e = self.embedding(ids)
        return self.fc2(skiff.nn.functional.relu(self.fc1(skiff.reshape(e, [-1, FIELDS * DIM]))))


class TorchCTR(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = torch.nn.Embedding(VOCAB, DIM, sparse=True)
        self.fc1 = torch.nn.Linear(FIELDS * DIM, HIDDEN)
        self.fc2 = torch.nn.Linear(HIDDEN, 1)

    def forward(self, ids):
        e = self.embedding(ids).reshape(-1, FIELDS * DIM)
        return self.fc2(torch.relu(self.fc1(e)))


def skiff_loss(model, batch):
    logits = model(skiff.to_tensor(batch["ids"]))
    return skiff.nn.functional.binary_cross_entropy_with_logits(
        logits, skiff.to_tensor(batch["label"].reshape(-1, 1)))


def train_skiff(address, stream, group, folder):
    """Trains until the stream is idle for a second; returns the records applied, and per
    step the write times of its records and the time the step ended."""
    skiff.seed(0)
    model = SkiffCTR()
    optimizer = skiff.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())
    source = RedisStream(stream, address, group=group, consumer="skiff")
    dataset = StreamDataset(source, schema=SCHEMA, batch_size=BATCH, idle_timeout=1.0)
    written, done = [], []

    def loss_fn(m, batch):
        written.append(batch["t"])
        return skiff_loss(m, batch)
    step = optimizer.step

    def timed_step():
        step()
        done.append(time.time())
    optimizer.step = timed_step
    trainer = OnlineTrainer(model, optimizer, loss_fn, dataset, folder,
                            checkpoint_every=CHECKPOINT_EVERY)
    return trainer.fit(), written, done


def train_torch(address, stream, group, folder):
    """The pipeline a PyTorch user writes: read a group's records, decode, step; every 50
    steps torch.save the model, optimizer and last entry ID, then XACK."""
    torch.manual_seed(0)
    model = TorchCTR()
    dense = [p for n, p in model.named_parameters() if not n.startswith("embedding")]
    optimizer = torch.optim.SGD(dense, lr=0.05)
    sparse = torch.optim.SGD(model.embedding.parameters(), lr=0.05)
    host, port = address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    try:
        client.xgroup_create(stream, group, id="0", mkstream=True)
    except redis.ResponseError:
        pass
    state = {"records": 0, "steps": 0, "unacked": []}
    written, done = [], []

    def step(entries):
        ids = torch.from_numpy(np.stack([np.frombuffer(f[b"ids"], np.int64) for _, f in entries]))
        label = torch.from_numpy(np.frombuffer(b"".join(f[b"label"] for _, f in entries),
                                               np.float32).copy()).reshape(-1, 1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(model(ids), label)
        optimizer.zero_grad()
        sparse.zero_grad()
        loss.backward()
        optimizer.step()
        sparse.step()
        written.append(np.frombuffer(b"".join(f[b"t"] for _, f in entries), np.float64))
        done.append(time.time())
        state["steps"] += 1
        state["records"] += len(entries)
        state["unacked"] += [eid for eid, _ in entries]
        if state["steps"] % CHECKPOINT_EVERY == 0:
            checkpoint()

    def checkpoint():
        path = os.path.join(folder, "torch.ckpt")
        torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                    "last": state["unacked"][-1]}, path + ".tmp")
        os.replace(path + ".tmp", path)
        client.xack(stream, group, *state["unacked"])
        state["unacked"] = []

    pending = []
    idle_since = time.monotonic()
    while time.monotonic() - idle_since < 1.0:
        reply = client.xreadgroup(group, "torch", {stream: ">"}, count=BATCH, block=100)
        entries = reply[0][1] if reply else []
        if entries:
            idle_since = time.monotonic()
        pending += entries
        while len(pending) >= BATCH:
            step(pending[:BATCH])
            pending = pending[BATCH:]
    if pending:
        step(pending)
    if state["unacked"]:
        checkpoint()
    client.close()
    return state["records"], written, done


def timed(fn, *args):
    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def latency_run(train, address, stream, folder, n, rate):
    """p50 and p99 (ms) from a record's write to the end of the step that applied it, with
    a producer writing `rate` records/s; full batches only (the last one waits for the
    stream to go idle)."""
    producer = threading.Thread(target=produce, args=(address, stream, n, rate))
    producer.start()
    _, written, done = train(address, stream, "latency", folder)
    producer.join()
    ms = np.concatenate([(end - t) * 1e3 for t, end in zip(written, done) if len(t) == BATCH])
    return np.percentile(ms, 50), np.percentile(ms, 99)


def spark_scoring(n, prefix, torch_model):
    import pyarrow as pa  # noqa: PLC0415 - only the Spark part needs them
    from pyspark.sql import SparkSession  # noqa: PLC0415

    from skiff.streams.spark import arrow_predictor, with_column  # noqa: PLC0415
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("w11")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    ids = np.random.default_rng(1).integers(0, VOCAB, (n, FIELDS), dtype=np.int64)
    df = spark.createDataFrame(pa.table({"ids": list(ids)})).repartition(2).cache()
    df.count()
    torch_path = os.path.join(os.path.dirname(prefix), "torch_ctr.pt")
    torch.save(torch_model.state_dict(), torch_path)

    def torch_udf(batches):
        torch.set_num_threads(1)
        net = TorchCTR()
        net.load_state_dict(torch.load(torch_path))
        net.eval()
        for b in batches:
            col = b.column("ids")
            x = torch.from_numpy(col.flatten().to_numpy().reshape(len(col), FIELDS))
            with torch.inference_mode():
                y = net(x).numpy().reshape(-1)
            yield pa.RecordBatch.from_arrays([*b.columns, pa.array(y)],
                                             names=[*b.schema.names, "score"])
    out = {}
    for name, fn in [("skiff Arrow UDF", arrow_predictor(prefix, ["ids"], "score")),
                     ("PyTorch UDF", torch_udf)] * 2:  # twice each: the second is timed
        t0 = time.perf_counter()
        rows = df.mapInArrow(fn, with_column(df.schema, "score")).selectExpr(
            "sum(score)").collect()
        out[name] = (n / (time.perf_counter() - t0), rows[0][0])
    spark.stop()
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--records", type=int, default=200_000)
    p.add_argument("--rate", type=int, default=5000, help="records/s for the latency runs")
    p.add_argument("--latency-records", type=int, default=30_000)
    p.add_argument("--no-appendonly", dest="appendonly", action="store_false",
                   help="redis-server without its fsynced append-only file")
    a = p.parse_args()
    torch.set_num_threads(2)
    folder = tempfile.mkdtemp(prefix="skiff-w11-")
    with LocalRedis(appendonly=a.appendonly) as server:
        produce(server.address, "w11", a.records)
        print(f"# W11: {a.records} records in the stream, batch {BATCH}, checkpoint every "
              f"{CHECKPOINT_EVERY} steps; redis-server "
              f"{'with appendfsync always' if a.appendonly else 'without persistence'}")
        results = {}
        for round_ in range(2):
            for name, train in (("skiff", train_skiff), ("PyTorch + redis-py", train_torch)):
                ckpt = os.path.join(folder, f"{name[:5]}-{round_}")
                os.makedirs(ckpt)
                t0 = time.time()
                records, _, done = train(server.address, "w11", f"{name[:5]}-{round_}", ckpt)
                seconds = done[-1] - t0  # to the last step, not the idle second after it
                results.setdefault(name, []).append(records / seconds)
                print(f"# round {round_}: {name} trained {records} records in {seconds:.1f} s")
        for name, rates in results.items():
            print(f"| online training records/s (best of 2) | {name} | {max(rates):,.0f} |")
        for name, train in (("skiff", train_skiff), ("PyTorch + redis-py", train_torch)):
            ckpt = os.path.join(folder, f"lat-{name[:5]}")
            os.makedirs(ckpt)
            p50, p99 = latency_run(train, server.address, f"lat-{name[:5]}", ckpt,
                                   a.latency_records, a.rate)
            print(f"| record written -> applied, ms p50 / p99 at {a.rate} records/s | {name} "
                  f"| {p50:.1f} / {p99:.1f} |")

        skiff.seed(0)
        model = SkiffCTR()
        model.eval()
        prefix = os.path.join(folder, "ctr")
        skiff.jit.save(model, prefix,
                       input_spec=[skiff.static.InputSpec([None, FIELDS], "int64", "ids")])
        net = skiff.jit.load(prefix)
        source = RedisStream("w11", server.address, group="scorer", consumer="scorer")
        dataset = StreamDataset(source, schema=SCHEMA, batch_size=BATCH, idle_timeout=1.0)
        scorer = StreamScorer(lambda b: net(skiff.to_tensor(b["ids"])).numpy(), dataset,
                              "w11:scores")
        written, seconds = timed(scorer.run)
        seconds -= dataset.idle_timeout  # the idle second that ends the run
        print(f"| streaming inference records/s (StreamScorer, Redis in and out) | skiff | "
              f"{written / seconds:,.0f} |")
    n = a.records
    for name, (rate, checksum) in spark_scoring(n, prefix, TorchCTR()).items():
        print(f"| Spark mapInArrow records/s, local[2] | {name} | {rate:,.0f} | "
              f"(sum of scores {checksum:.3f}) |")


if __name__ == "__main__":
    main()
