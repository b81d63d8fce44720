"""The W5-like online CTR model of the stream tests (W11 at test size): 26 categorical
fields looked up in one embedding table (sparse gradients), concatenated, an MLP 416-64-1,
BCE with logits, SGD; float64, so that a run restarted from checkpoints can be compared
with one never stopped to 1e-6. Records: `ids` (26 int64, raw), `label` (float32, raw),
generated from a fixed seed.

    python ctr_stream.py train ADDRESS STREAM GROUP CHECKPOINT_DIR OUT.npz [BATCH]
    python ctr_stream.py score ADDRESS STREAM GROUP MODEL_PREFIX OUTPUT_STREAM
    python -m skiff.distributed.launch --nproc_per_node 2 ctr_stream.py \
        train-dp ADDRESS STREAM GROUP CHECKPOINT_DIR AUDIT_DIR
    python ctr_stream.py train-ps ADDRESS STREAM GROUP CHECKPOINT_DIR AUDIT_DIR
        (a trainer of a parameter-server job: Paddle's PADDLE_* variables say which)
"""
import json
import os
import sys

import numpy as np
import redis

import skiff
import skiff.distributed as dist
from skiff.distributed import ps
from skiff.io import RedisStream, Schema, StreamDataset
from skiff.streams import OnlineTrainer, StreamScorer

FIELDS, VOCAB, DIM = 26, 5000, 16
SCHEMA = {"ids": ("int64", [FIELDS]), "label": ("float32", [])}


def records(n, seed=7):
    """The ids and labels of the n records, the same every time."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, VOCAB, (n, FIELDS), dtype=np.int64)
    labels = (ids[:, :3].sum(axis=1) % 3 == 0).astype(np.float32)
    return ids, labels


def produce(address, stream, n, bad_every=0):
    """Appends the n records to `stream`; with `bad_every` k, every k-th record is broken
    (an ids field of the wrong size) instead."""
    schema = Schema(SCHEMA)
    host, port = address.rsplit(":", 1)
    client = redis.Redis(host=host, port=int(port))
    ids, labels = records(n)
    pipe = client.pipeline(transaction=False)
    for i in range(n):
        fields = schema.encode(ids=ids[i], label=labels[i])
        if bad_every and i % bad_every == bad_every - 1:
            fields[b"ids"] = fields[b"ids"][:-8]
        pipe.xadd(stream, fields)
        if i % 2000 == 1999:
            pipe.execute()
    pipe.execute()
    client.close()


class CTR(skiff.nn.Layer):
    def __init__(self, embedding):
        super().__init__()
        self.embedding = embedding
        self.fc1 = skiff.nn.Linear(FIELDS * DIM, 64)
        self.fc2 = skiff.nn.Linear(64, 1)

    def forward(self, ids):
        e = self.embedding(ids)
        h = skiff.nn.functional.relu(self.fc1(skiff.reshape(e, [-1, FIELDS * DIM])))
        return self.fc2(h)


def model(sparse=True):
    """The model, float64, its parameters from a fixed seed (the default dtype is left as
    it was); DataParallel reduces dense gradients only, so its embedding is dense."""
    default = skiff.get_default_dtype()
    skiff.set_default_dtype("float64")
    skiff.seed(11)
    try:
        return CTR(skiff.nn.Embedding(VOCAB, DIM, sparse=sparse))
    finally:
        skiff.set_default_dtype(default)


def loss_fn(net, batch):
    logits = net(skiff.to_tensor(batch["ids"]))
    label = skiff.to_tensor(batch["label"].reshape(-1, 1)).astype(logits.dtype)
    return skiff.nn.functional.binary_cross_entropy_with_logits(logits, label)


def audited(loss, audit_dir, rank, trainer):
    """``loss`` that first appends the batch's step and entry IDs to AUDIT_DIR/rank<r>.log
    (a step redone after a crash appears again)."""
    audit = open(os.path.join(audit_dir, f"rank{rank}.log"), "a")

    def logged_loss(net, batch):
        audit.write(json.dumps({"step": trainer().steps + 1, "ids": list(batch.ids)}) + "\n")
        audit.flush()
        return loss(net, batch)
    return logged_loss


def train(address, stream, group, checkpoint_dir, out, batch_size=512):
    net = model()
    optimizer = skiff.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    source = RedisStream(stream, address, group=group, consumer="trainer")
    dataset = StreamDataset(source, schema=SCHEMA, batch_size=batch_size, idle_timeout=1.5)
    trainer = OnlineTrainer(net, optimizer, loss_fn, dataset, checkpoint_dir,
                            checkpoint_every=5)
    print(f"start: {trainer.records} records applied before", flush=True)
    applied = trainer.fit()
    params = {k: v.numpy() for k, v in net.state_dict().items()}
    np.savez(out + ".tmp.npz", records=applied, steps=trainer.steps,
             dead=dataset.stats["dead_letters"], **params)
    os.replace(out + ".tmp.npz", out)
    print(f"done: {applied} records in {trainer.steps} steps", flush=True)


def train_dp(address, stream, group, checkpoint_dir, audit_dir):
    """Data parallel: each rank a consumer of the group; every applied step's entry IDs
    appended to AUDIT_DIR/rank<r>.log (a step redone after a crash appears again)."""
    dist.init_parallel_env()
    rank = dist.get_rank()
    net = dist.DataParallel(model(sparse=False))
    optimizer = skiff.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    source = RedisStream(stream, address, group=group, consumer=f"trainer-{rank}")
    dataset = StreamDataset(source, schema=SCHEMA, batch_size=128, idle_timeout=2.0)
    trainer = OnlineTrainer(net, optimizer, audited(loss_fn, audit_dir, rank, lambda: trainer),
                            dataset, checkpoint_dir, checkpoint_every=5)
    applied = trainer.fit()
    print(f"done: rank {rank} applied {applied} records in {trainer.steps} steps", flush=True)


def ps_model(connection=None):
    """The model on parameter servers (float32): (the model, its ps.Trainer)."""
    skiff.seed(11)
    sgd = {"kind": "sgd", "lr": 0.05}
    net = CTR(ps.DistributedEmbedding(
        "emb", DIM, init={"kind": "uniform", "low": -0.05, "high": 0.05, "seed": 3},
        optimizer=sgd, connection=connection))
    return net, ps.Trainer(net, optimizer=sgd, connection=connection)


def train_ps(address, stream, group, checkpoint_dir, audit_dir):
    """Parameter servers in sync mode: the embedding's rows and the MLP on the servers
    (float32), each trainer a consumer of the group, every applied step's entry IDs
    audited as in train-dp."""
    ps.init(mode="sync", connect_secs=20.0, barrier_timeout=120.0)
    rank = ps.connection().trainer_id
    net, on_servers = ps_model()
    source = RedisStream(stream, address, group=group, consumer=f"trainer-{rank}")
    dataset = StreamDataset(source, schema=SCHEMA, batch_size=128, idle_timeout=2.0)
    trainer = OnlineTrainer(net, on_servers, audited(loss_fn, audit_dir, rank, lambda: trainer),
                            dataset, checkpoint_dir, checkpoint_every=5)
    print(f"start: trainer {rank} resumes after step {trainer.steps}", flush=True)
    applied = trainer.fit()
    print(f"done: trainer {rank} applied {applied} records in {trainer.steps} steps",
          flush=True)


def score(address, stream, group, prefix, output):
    net = skiff.jit.load(prefix)
    source = RedisStream(stream, address, group=group, consumer="scorer")
    dataset = StreamDataset(source, schema=SCHEMA, batch_size=256, idle_timeout=1.5)

    def predict(batch):
        return net(skiff.to_tensor(batch["ids"])).numpy()
    scorer = StreamScorer(predict, dataset, output)
    written = scorer.run()
    print(f"done: {written} written, {scorer.stats['replayed']} replayed", flush=True)


if __name__ == "__main__":
    command, *args = sys.argv[1:]
    if command == "train":
        train(*args[:5], *(int(a) for a in args[5:]))
    elif command == "train-dp":
        train_dp(*args)
    elif command == "train-ps":
        train_ps(*args)
    elif command == "score":
        score(*args)
    else:
        raise SystemExit(f"unknown command {command!r}")
