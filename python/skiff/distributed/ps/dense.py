"""DenseParameters: ordinary parameters (an MLP's weights) kept on the parameter servers,
one dense table per parameter, updated there by a server-side optimizer."""
import math
import zlib

import numpy as np

from ...autograd import no_grad
from ...framework.core import eager_op
from ...framework.initializer import compute_fans
from . import client

__all__ = ["DenseParameters", "default_init"]


def default_init(shape, table):
    """The server initializer of a parameter of ``shape``, as a Linear's defaults:
    Xavier-uniform for a matrix (or a conv kernel), zeros for a vector; seeded by the
    table's name so that two tables start differently."""
    if len(shape) < 2:
        return {"kind": "constant", "value": 0.0}
    fan_in, fan_out = compute_fans(list(shape))
    limit = math.sqrt(6.0 / float(fan_in + fan_out))
    return {"kind": "uniform", "low": -limit, "high": limit, "seed": zlib.crc32(table.encode())}


class DenseParameters:
    """``parameters`` (trainable ones; their order names the tables ``name.0``,
    ``name.1``, ...) kept on the servers. The servers make their initial values
    (``init``, a dict as _C.PsClient.create_table takes, for all of them; default:
    default_init per parameter), so a trainer's own values are replaced at the first
    pull(). push(step) sends the gradients, pull() copies the values back: through the
    ps_push_dense / ps_pull_dense ops a split static program runs, every table of a server
    in one call."""

    def __init__(self, parameters, name="dense", optimizer=None, init=None, connection=None):
        self.parameters = [p for p in parameters if not p.stop_gradient]
        self.tables = [f"{name}.{i}" for i in range(len(self.parameters))]
        self._connection = client.connection(connection)
        for p, table in zip(self.parameters, self.tables):
            shape = list(p.shape)
            start = dict(init) if init is not None else default_init(shape, table)
            if init is not None:
                start.setdefault("seed", zlib.crc32(table.encode()))
            self._connection.create_table(table, dense=True, size=int(np.prod(shape)),
                                          init=start, optimizer=dict(optimizer or {}))
            self._ops = self._connection.ops_connection(table, int(np.prod(shape)))

    def assign(self):
        """Sets the servers' values to the parameters' own (trainer 0's initial values,
        as Paddle's init_worker does)."""
        for p, table in zip(self.parameters, self.tables):
            values = np.ascontiguousarray(p.numpy(), dtype=np.float32).reshape(-1)
            self._connection.client.assign_dense(table, values)

    def pull(self):
        """Copies the servers' values into the parameters."""
        if not self.parameters:
            return
        pull = eager_op("ps_pull_dense", {"tables": self.tables, "connection": self._ops},
                        [len(self.parameters)])
        with no_grad():
            pull.call_into([self.parameters], [self.parameters])

    def push(self, step=0):
        """Sends each parameter's gradient for ``step`` (one without a gradient sends
        nothing: in sync mode it counts as zeros in the trainers' average)."""
        sent = [(p.grad, table) for p, table in zip(self.parameters, self.tables)
                if p.grad is not None]
        if sent:
            eager_op("ps_push_dense", {"tables": [t for _, t in sent], "connection": self._ops,
                                       "step": int(step)})([g for g, _ in sent])

    def clear_grad(self):
        for p in self.parameters:
            p.clear_grad(set_to_zero=False)  # an untouched table pushes nothing

    def __repr__(self):
        return f"ps.DenseParameters({len(self.parameters)} tables {', '.join(self.tables)})"
