"""Geo mode's trainer side (Paddle's GeoSGD): each trainer trains a local copy of the
parameters with plain SGD, and every ``k_steps`` steps sends the servers its share of how
far its copy moved since it last pulled (the servers add what they get), then takes the
servers' values.

    ps.init(endpoints, trainer_id, trainers, mode="geo")
    emb = ps.DistributedEmbedding("emb", 8, init={"kind": "uniform", "low": -0.1,
                                  "high": 0.1})
    model = CTR(emb)
    trainer = ps.GeoTrainer(model, k_steps=10, lr=0.1)   # dense values pulled here
    for ids, label in batches:
        F.binary_cross_entropy_with_logits(model(ids), label).backward()
        trainer.step()       # local SGD; every k_steps steps a sync
    trainer.finish()         # the last sync

A sync, as Paddle's: with T trainers each pushes 1/T of its delta (local value minus the
value it pulled), so that the servers move by the trainers' mean delta, and keeps the rest,
its carry, on top of the servers' new values; its next steps go on from there and the
carry goes out with its next deltas. While the trainers' moves agree the servers so move
about as far as their sum; where each trainer's k steps nearly reach an optimum, the
carry is trained back instead of overshooting. (Pushing whole deltas moves the servers T
times too far there: it oscillates with 2 trainers and diverges with more.)

The trainer's copies and the syncs are the ps ops' geo state (skiff/ps_ops/ps_geo.h), the
one a static program split for geo mode uses: a DistributedEmbedding in geo mode looks up
the trainer's rows (pulled the first time they are used after a sync, plus their carry),
step() trains them with SGD (ps_push_sparse with geo) and a sync pushes their share and
forgets them; a carry whose row is not used again within 4 syncs is dropped, so the trainer
holds only recent rows (Paddle keeps such a rest on the trainer for good; the servers have
the mean either way). Dense parameters (the model's trainable parameters, one dense table
each, as ps.Trainer names them) are trained by a local skiff.optimizer.SGD; a sync pushes
their share, pulls them and adds their carry. The servers' optimizers play no part in geo
mode.

Trainers never wait for one another: a trainer's values miss up to k_steps steps of the
others'. ``finish()`` after the last step pushes the share of what moved since the last
sync and drops the carries; once every trainer has finished (fleet.barrier_worker, or a
meeting through the connection), the servers hold the job's result and ``refresh()``
takes it. With one trainer nothing is carried: every sync pushes the whole delta.
"""
import numpy as np

from ... import _C
from ...optimizer import SGD
from ...tensor.creation import to_tensor
from . import client
from .dense import DenseParameters
from .embedding import DistributedEmbedding

__all__ = ["GeoTrainer"]


class GeoTrainer:
    """Drives ``model`` in geo mode: its DistributedEmbedding layers and its other trainable
    parameters (dense tables ``name.0``, ... initialised by the servers with ``init``, or
    with ``dense_from="trainer0"`` from trainer 0's model, as ps.Trainer) are trained here
    by SGD at rate ``lr``; every ``k_steps`` steps ``sync()`` pushes their share of the
    deltas and pulls; ``finish()`` after the last step. The connection must be in geo mode
    (ps.Trainer drives sync and async)."""

    def __init__(self, model, k_steps, lr, init=None, name="dense", connection=None,
                 dense_from="servers"):
        self._connection = client.connection(connection)
        if self._connection.mode != "geo":
            raise ValueError(f"ps.GeoTrainer: the connection is in {self._connection.mode} "
                             f"mode; geo training needs ps.init(..., mode='geo') (ps.Trainer "
                             f"drives sync and async)")
        if isinstance(k_steps, bool) or not isinstance(k_steps, int) or k_steps < 1:
            raise ValueError(f"ps.GeoTrainer: k_steps must be a positive integer, got "
                             f"{k_steps!r}")
        if isinstance(lr, bool) or not isinstance(lr, (int, float)) or not lr > 0:
            raise ValueError(f"ps.GeoTrainer: lr must be a positive number, got {lr!r}")
        if dense_from not in ("servers", "trainer0"):
            raise ValueError(f"ps.GeoTrainer: dense_from is 'servers' or 'trainer0', got "
                             f"{dense_from!r}")
        self.model, self.k_steps, self.lr = model, k_steps, float(lr)
        self.embeddings = [layer for layer in model.sublayers(include_self=True)
                           if isinstance(layer, DistributedEmbedding)]
        for embedding in self.embeddings:
            if not embedding.geo:
                raise ValueError(f"ps.GeoTrainer: DistributedEmbedding '{embedding.table}' "
                                 f"was made on a connection in another mode than geo")
        self.dense = DenseParameters(model.parameters(), name, None, init, self._connection)
        if dense_from == "trainer0":
            if self._connection.trainer_id == 0:
                self.dense.assign()
            self._connection.meet(-1)
        self._local = SGD(learning_rate=self.lr, parameters=self.dense.parameters) \
            if self.dense.parameters else None
        self._lr = to_tensor(np.array([self.lr], np.float32))
        self._ops = self._connection.ops_connection()
        for p, table in zip(self.dense.parameters, self.dense.tables):
            self._connection.ops_connection(table, int(np.prod(p.shape)))
        self._pull_dense()
        self.step_id = 0

    def step(self):
        """One local SGD step from the gradients of the last backward (sparse rows and
        dense parameters); clears them; every k_steps-th step ends with sync()."""
        for embedding in self.embeddings:
            embedding.train_locally(self._lr)
        if self._local is not None:
            self._local.step()
            self._local.clear_grad()
        self.step_id += 1
        if self.step_id % self.k_steps == 0:
            self.sync()

    def sync(self, final=False):
        """Pushes 1/trainers of the deltas of the rows and dense parameters trained since
        the last sync, then pulls the dense values and adds the rest of their deltas (rows
        are pulled when next used). ``final``: the rest is dropped instead, and nothing
        is pulled."""
        values = {table: np.array(p.numpy(), np.float32).reshape(-1)
                  for p, table in zip(self.dense.parameters, self.dense.tables)}
        _C.ps_ops_geo_sync(self._ops, values, final)
        if not final:
            for p, table in zip(self.dense.parameters, self.dense.tables):
                p.set_value(values[table].reshape(list(p.shape)))

    def finish(self):
        """The last sync of a trainer, after its last step (see the module's note)."""
        self.sync(final=True)

    def refresh(self):
        """Takes the servers' current values (after the others' syncs), dropping what this
        trainer changed since its last final sync and the rows it holds."""
        self._pull_dense()

    def _pull_dense(self):
        """Pulls the dense parameters; they are the bases of the next sync, which starts
        afresh (the geo state's rows and carries dropped)."""
        self.dense.pull()
        _C.ps_ops_geo(self._ops, self._connection.trainers,
                      {table: np.ascontiguousarray(p.numpy(), np.float32).reshape(-1)
                       for p, table in zip(self.dense.parameters, self.dense.tables)})

    def __repr__(self):
        return (f"ps.GeoTrainer(k_steps {self.k_steps}, lr {self.lr}, {len(self.embeddings)} "
                f"embedding(s), {len(self.dense.parameters)} dense parameter(s))")
