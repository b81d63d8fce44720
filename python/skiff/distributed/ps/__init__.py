"""Parameter-server training for large sparse models (Paddle's fleet PS mode): sparse
embedding tables sharded by id and dense tables live on gRPC servers that apply the
optimizer; trainers pull rows, push gradients, and in sync mode meet at each step's
barrier, where the servers apply the average of the trainers' gradients.

    python -m skiff.distributed.ps.server --shard 0 --shards 2     # on each server

    from skiff.distributed import ps
    ps.init(["127.0.0.1:7001", "127.0.0.1:7002"], trainer_id=0, trainers=2, mode="sync")
    emb = ps.DistributedEmbedding("emb", 8, init={"kind": "uniform", "low": -0.1,
                                  "high": 0.1}, optimizer={"kind": "sgd", "lr": 0.1})
    model = CTR(emb)                                  # an nn.Layer using emb
    trainer = ps.Trainer(model, optimizer={"kind": "sgd", "lr": 0.1})
    for ids, label in batches:
        F.binary_cross_entropy_with_logits(model(ids), label).backward()
        trainer.step()

Geo mode (ps.init(..., mode="geo")): ps.GeoTrainer(model, k_steps, lr) trains locally and
sends deltas every k_steps steps (see geo.py).
"""

from .client import (Connection, barrier, connection, info, init, load, save, shrink,
                     shutdown, stop_servers)
from .dense import DenseParameters
from .embedding import DistributedEmbedding
from ...static.nn.entry import CountFilterEntry, EntryAttr, ProbabilityEntry
from .geo import GeoTrainer
from .trainer import Trainer

__all__ = ["Connection", "init", "connection", "barrier", "save", "load", "info", "shrink",
           "stop_servers", "shutdown", "DistributedEmbedding", "DenseParameters", "Trainer",
           "GeoTrainer", "EntryAttr", "CountFilterEntry", "ProbabilityEntry"]
