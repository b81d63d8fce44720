"""DistributedEmbedding: an embedding whose rows live in a sparse table on the parameter
servers, keyed by any int64 id (no vocabulary size)."""
import numbers

import numpy as np

from ... import _C
from ...autograd import is_grad_enabled
from ...framework.core import eager_op
from ...nn import Layer
from ...tensor.creation import to_tensor, zeros
from . import client
from ...static.nn.entry import table_config

__all__ = ["DistributedEmbedding", "as_int64_ids"]

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


def _out_of_range(value, what):
    return ValueError(f"{what}: id {value} is outside the int64 range [-2**63, 2**63 - 1]")


def as_int64_ids(ids, what):
    """``ids`` (a Tensor, numpy array, int or nested lists of ints) as an int64 numpy
    array of the same shape; ValueError naming ``what`` and the id for one that does not
    fit in int64, TypeError for ids that are not integers."""
    if isinstance(ids, _C.Tensor):
        ids = ids.numpy()
    if isinstance(ids, np.ndarray) and ids.dtype != object:
        if ids.dtype.kind not in "iu":
            raise TypeError(f"{what}: ids must be integers, got {ids.dtype} values")
        if ids.dtype.kind == "u" and ids.size and ids.max() > INT64_MAX:
            raise _out_of_range(int(ids.max()), what)
        return np.ascontiguousarray(ids, dtype=np.int64)
    values = np.array(ids, dtype=object)
    for v in values.flat:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
            raise TypeError(f"{what}: ids must be integers, got {v!r}")
        if not INT64_MIN <= int(v) <= INT64_MAX:
            raise _out_of_range(int(v), what)
    return np.array([int(v) for v in values.flat], dtype=np.int64).reshape(values.shape)


class DistributedEmbedding(Layer):
    """Rows of ``embedding_dim`` floats by int64 id, kept in the sparse table ``name`` on
    the servers (sharded by id), created on first use by ``init`` and updated there by
    ``optimizer`` (dicts as _C.PsClient.create_table takes, e.g. {"kind": "uniform",
    "low": -0.1, "high": 0.1, "seed": 1} and {"kind": "adagrad", "lr": 0.05}). ``entry``
    (a CountFilterEntry or ProbabilityEntry, entry.py) admits new ids only when seen often
    enough; ``ttl_secs`` > 0 lets ps.shrink() evict rows unused that long.

    forward(ids) returns the rows of ids (ids' shape plus [embedding_dim]) through the
    ps_pull_sparse op, which pulls each distinct id once; after backward, push(step) sends
    the rows' gradients through ps_push_sparse (a Trainer does it): the ops a split static
    program runs, on this layer's connection. An existing table of another dim fails with
    skiff.Error naming it.

    On a connection in geo mode the lookups read the trainer's copies of the rows (pulled
    when first used after a sync: skiff/ps_ops/ps_geo.h) and a ps.GeoTrainer trains them
    (train_locally) and sends their deltas; push is refused (the servers add what is
    pushed).
    """

    def __init__(self, name, embedding_dim, init=None, optimizer=None, entry=None,
                 ttl_secs=0.0, connection=None):
        super().__init__()
        self.table, self.embedding_dim = str(name), int(embedding_dim)
        self._connection = client.connection(connection)
        self._connection.create_table(
            self.table, dim=self.embedding_dim, init=dict(init or {}),
            optimizer=dict(optimizer or {}), ttl_secs=float(ttl_secs),
            **table_config(entry, f"DistributedEmbedding '{self.table}'"))
        # Each forward's (ids, rows) since push() / train_locally().
        self._pulled = []
        self.geo = self._connection.mode == "geo"
        self._ops = self._connection.ops_connection(self.table, self.embedding_dim)

    def forward(self, ids):
        ids = as_int64_ids(ids, f"DistributedEmbedding '{self.table}'")
        shape = list(ids.shape) + [self.embedding_dim]
        if ids.size == 0:
            return zeros(shape, "float32")
        ids = to_tensor(ids)
        rows = eager_op("ps_pull_sparse", self._attrs())(ids)
        if self.training and is_grad_enabled():
            rows.stop_gradient = False
            self._pulled.append((ids, rows))
        return rows

    def pull(self, ids):
        """The current rows of ``ids`` (int64 numpy, 1-D) as a float32 numpy [n, dim]."""
        return self._connection.client.pull_sparse(self.table, ids, self.embedding_dim)

    def push(self, step=0):
        """Sends the gradients of the rows pulled since the last push (rows that got no
        gradient are left out) for ``step``, and forgets those rows."""
        if self.geo:
            raise RuntimeError(f"DistributedEmbedding '{self.table}': in geo mode the rows are "
                               f"trained locally and their deltas sent by a ps.GeoTrainer; "
                               f"push (gradients) is for sync and async modes")
        push = _C.Op("ps_push_sparse", self._attrs(step=int(step)), None)
        self._send(lambda ids, grad: push(ids, grad, None))  # (no LearningRate)

    def train_locally(self, lr):
        """Geo mode: one SGD step at rate ``lr`` (a float32 Tensor of one element) on the
        trainer's copies of the rows pulled since the last call, from their gradients
        (ps_push_sparse with geo); forgets those rows."""
        push = _C.Op("ps_push_sparse", self._attrs(), None)
        self._send(lambda ids, grad: push(ids, grad, lr))

    def _send(self, push):
        """Calls push(ids, gradient) for each forward since the last call whose rows got
        a gradient, and forgets them."""
        pulled, self._pulled = self._pulled, []
        for ids, rows in pulled:
            if rows.grad is not None:
                push(ids, rows.grad)

    def _attrs(self, **more):
        return {"table": self.table, "dim": self.embedding_dim, "connection": self._ops,
                "geo": self.geo, **more}

    def extra_repr(self):
        return f"table={self.table!r}, embedding_dim={self.embedding_dim}"
