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

Sparse rows: a DistributedEmbedding in geo mode keeps the rows it uses (LocalRows): a row
is pulled the first time it is used after a sync (plus its carry), trained locally, and
at the next sync its share pushed and the row forgotten. A carry whose row is not used
again within CARRY_SYNCS syncs is dropped, so the trainer holds only recent rows (Paddle
keeps such a rest on the trainer for good; the servers have the mean either way). Dense
parameters (the model's trainable parameters, one dense table each, as ps.Trainer names
them) are trained by a local skiff.optimizer.SGD; a sync pushes their share, pulls them
and adds their carry. The servers' optimizers play no part in geo mode.

Trainers never wait for one another: a trainer's values miss up to k_steps steps of the
others'. ``finish()`` after the last step pushes the share of what moved since the last
sync and drops the carries; once every trainer has finished (fleet.barrier_worker, or a
meeting through the connection), the servers hold the job's result and ``refresh()``
takes it. With one trainer nothing is carried: every sync pushes the whole delta.
"""
import numpy as np

from ...optimizer import SGD
from . import client
from .dense import DenseParameters
from .embedding import DistributedEmbedding

__all__ = ["GeoTrainer", "LocalRows"]

CARRY_SYNCS = 4  # a row's carry is dropped at the 4th sync after its own without the row


class LocalRows:
    """A geo trainer's copy of the rows of a sparse table it used since its last sync (for
    each id the value pulled, ``base``, and the value trained here), and the carries of
    rows of earlier syncs (the part of their delta kept here), each dropped at the
    ``carry_syncs``-th sync after its own in which its row was not used."""

    def __init__(self, dim, carry_syncs=CARRY_SYNCS):
        self.dim, self.carry_syncs = int(dim), int(carry_syncs)
        self._slot = {}   # id -> row of _values / _base
        self._carry = {}  # id -> ([dim] floats added to the row when next pulled, syncs)
        self._values = np.zeros((16, self.dim), np.float32)
        self._base = np.zeros((16, self.dim), np.float32)

    def __len__(self):
        return len(self._slot)

    def get(self, ids, pull):
        """The local rows of distinct ``ids`` (int64 numpy, 1-D) as a new float32 array
        [n, dim]; ids not held yet are fetched with ``pull(missing_ids)`` first (their
        value: the servers' plus their carry)."""
        keys = ids.tolist()
        missing = [k for k in keys if k not in self._slot]
        if missing:
            self._append(missing, pull(np.array(missing, np.int64)))
        return self._values[self._slots(keys)]

    def add(self, ids, update):
        """Adds ``update`` [n, dim] to the rows of ``ids`` (held ones; ids may repeat)."""
        np.add.at(self._values, self._slots(ids.tolist()), update)

    def take_deltas(self, share, final=False):
        """(ids, ``share`` of each moved row's delta: local value minus pulled value), what
        a sync pushes; forgets the rows. The rest of each delta becomes the row's carry
        (none when ``final``, which drops every carry)."""
        n = len(self._slot)
        ids = np.fromiter(self._slot.keys(), np.int64, n)
        delta = self._values[:n] - self._base[:n]
        moved = np.any(delta != 0, axis=1)
        ids, delta = ids[moved], delta[moved]
        self._slot.clear()
        if final or share >= 1:
            self._carry.clear()
        else:
            self._carry = {k: v for k, v in self._carry.items() if v[1] + 1 < self.carry_syncs}
            for k, v in self._carry.items():
                self._carry[k] = (v[0], v[1] + 1)
            self._carry.update(zip(ids.tolist(), ((c, 0) for c in delta * (1 - share))))
        return ids, np.ascontiguousarray(delta * share, np.float32)

    def clear(self):
        """Forgets the rows and the carries."""
        self._slot.clear()
        self._carry.clear()

    def _slots(self, keys):
        return np.fromiter((self._slot[k] for k in keys), np.int64, len(keys))

    def _append(self, keys, rows):
        start, end = len(self._slot), len(self._slot) + len(keys)
        if end > len(self._values):
            size = max(end, 2 * len(self._values))
            self._values = np.resize(self._values, (size, self.dim))
            self._base = np.resize(self._base, (size, self.dim))
        self._base[start:end] = rows
        for i, k in enumerate(keys):
            carry = self._carry.pop(k, None)
            if carry is not None:
                rows[i] += carry[0]
        self._values[start:end] = rows
        self._slot.update(zip(keys, range(start, end)))


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
            if embedding.local_rows is None:
                raise ValueError(f"ps.GeoTrainer: DistributedEmbedding '{embedding.table}' "
                                 f"was made on a connection in another mode than geo")
        self.dense = DenseParameters(model.parameters(), name, None, init, self._connection)
        if dense_from == "trainer0":
            if self._connection.trainer_id == 0:
                self.dense.assign()
            self._connection.meet(-1)
        self._local = SGD(learning_rate=self.lr, parameters=self.dense.parameters) \
            if self.dense.parameters else None
        self._pull_dense()
        self.step_id = 0

    def step(self):
        """One local SGD step from the gradients of the last backward (sparse rows and
        dense parameters); clears them; every k_steps-th step ends with sync()."""
        for embedding in self.embeddings:
            taken = embedding.take_gradients()
            if taken is not None:
                ids, grads = taken
                embedding.local_rows.add(ids, -self.lr * grads)
        if self._local is not None:
            self._local.step()
            self._local.clear_grad()
        self.step_id += 1
        if self.step_id % self.k_steps == 0:
            self.sync()

    def sync(self, final=False):
        """Pushes 1/trainers of the deltas of the rows and dense parameters trained since
        the last sync, then pulls the dense values and adds the rest of their deltas (rows
        are pulled when next used). ``final``: the rest is dropped instead."""
        share = 1.0 / self._connection.trainers
        for embedding in self.embeddings:
            ids, values = embedding.local_rows.take_deltas(share, final)
            if len(ids):
                self._connection.client.push_sparse(embedding.table, ids, values, self.step_id)
        carries = []
        for p, table, base in zip(self.dense.parameters, self.dense.tables, self._base):
            delta = np.ascontiguousarray(p.numpy(), np.float32).reshape(-1) - base
            if np.any(delta != 0):
                self._connection.client.push_dense(table, delta * share, self.step_id)
            carries.append(delta * (1 - share))
        self._pull_dense(None if final else carries)

    def finish(self):
        """The last sync of a trainer, after its last step (see the module's note)."""
        self.sync(final=True)

    def refresh(self):
        """Takes the servers' current values (after the others' syncs), dropping what this
        trainer changed since its last final sync."""
        for embedding in self.embeddings:
            embedding.local_rows.clear()
        self._pull_dense()

    def _pull_dense(self, carries=None):
        self.dense.pull()
        self._base = [np.ascontiguousarray(p.numpy(), np.float32).reshape(-1).copy()
                      for p in self.dense.parameters]
        for p, base, carry in zip(self.dense.parameters, self._base, carries or []):
            if np.any(carry != 0):
                p.set_value((base + carry).reshape(list(p.shape)))

    def __repr__(self):
        return (f"ps.GeoTrainer(k_steps {self.k_steps}, lr {self.lr}, {len(self.embeddings)} "
                f"embedding(s), {len(self.dense.parameters)} dense parameter(s))")
