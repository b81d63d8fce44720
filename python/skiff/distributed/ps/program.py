"""Parameter-server training of static programs (Paddle's fleet PS mode with
``fleet.distributed_optimizer(opt, strategy).minimize(loss)``). DistributedMinimizer runs
the optimizer's minimize, then splits the programs in place with the C++ pass ps_split:
lookups of sparse tables (embeddings with is_sparse or is_distributed) pull their rows
from the servers and push their gradients, every other trained parameter is a dense table
whose gradient is pushed and whose value is pulled after the step's barrier, and the
servers apply the optimizer. init_worker then creates the tables and connects the ps ops.

    opt = DistributedMinimizer(skiff.optimizer.SGD(learning_rate=0.1), mode="sync")
    opt.minimize(loss)                          # main and startup programs split
    exe.run(static.default_startup_program())
    init_worker(ps.init(endpoints, trainer_id, trainers, mode="sync"))
    for ids, label in batches:                  # one step: pulls, pushes, barrier, pulls
        exe.run(feed={"ids": ids, "label": label}, fetch_list=[loss])

In geo mode (``DistributedMinimizer(SGD(lr), mode="geo", k_steps=K)``, Paddle's GeoSGD)
the trainer trains local copies with the program's SGD: its lookups read rows it keeps
(pulled when first used after a sync), their gradients update those rows, the dense
parameters keep their sgd ops, and every K steps ``ps_geo_step`` sends the servers
1/trainers of how far each copy moved and pulls the dense values back (skiff/ps_ops/
ps_geo.h). ``flush()`` after the last step sends what moved since the last sync.

Tables are named after their parameters. A sparse table's rows start from the
initializer of the startup program's op for its parameter (uniform, normal, truncated
normal within 2 std, constant), seeded by the table's name, so any id gets a row; dense
tables start from trainer 0's startup values (as Paddle's init_worker).
"""
import math
import weakref
import zlib

import numpy as np

from ... import _C
from . import client
from .dense import default_init
from ...static.nn.entry import table_config
from ...optimizer.lr import LRScheduler
from ... import optimizer as opt
from ... import static

__all__ = ["DistributedMinimizer", "init_worker", "stop_worker", "pending", "flush", "refresh"]

_splits = []  # the _Split of the programs DistributedMinimizer rewrote in this process


class Table:
    """A table of a split program: ``name`` on the servers for parameter ``param``, sparse
    (rows of ``dim``) or dense (``shape``), with the servers' ``init`` and ``optimizer``
    dicts as _C.PsClient.create_table takes them."""

    def __init__(self, param, shape, sparse, init, optimizer, admission=None):
        self.name = self.param = param
        self.shape, self.sparse = list(shape), bool(sparse)
        self.dim = self.shape[1] if sparse else 0
        self.init, self.optimizer = init, optimizer
        self.admission = dict(admission or {})  # sparse: create_table's admit_* settings

    @property
    def width(self):
        """Floats per row (sparse) or in all (dense)."""
        return self.dim if self.sparse else math.prod(self.shape)

    def create(self, connection):
        if self.sparse:
            connection.create_table(self.name, dim=self.dim, init=self.init,
                                    optimizer=self.optimizer, **self.admission)
        else:
            connection.create_table(self.name, dense=True, size=self.width, init=self.init,
                                    optimizer=self.optimizer)

    def __repr__(self):
        kind = f"sparse dim {self.dim}" if self.sparse else f"dense {self.shape}"
        return f"ps.program.Table({self.name!r}, {kind}, {self.optimizer})"


class _Split:
    """A split program (weakly: one that is gone no longer counts), its mode and tables."""

    def __init__(self, main, mode, tables):
        self.program, self.mode, self.tables = weakref.ref(main), mode, tables
        self.created = False


def _live_splits():
    _splits[:] = [s for s in _splits if s.program() is not None]
    return _splits


class DistributedMinimizer:
    """``optimizer`` (SGD, Adam or Adagrad with a float learning rate) applied by the
    parameter servers in ``mode`` "sync" (each step's gradients averaged over the trainers
    at its barrier) or "async"; or, in mode "geo" (or with ``k_steps`` > 0), an SGD
    optimizer training the trainer's local copies, synced every ``k_steps`` steps."""

    def __init__(self, optimizer, mode="sync", k_steps=0):
        if isinstance(k_steps, bool) or not isinstance(k_steps, int) or k_steps < 0:
            raise ValueError(f"DistributedMinimizer: k_steps must be a non-negative integer, "
                             f"got {k_steps!r}")
        if k_steps > 0 and mode in ("sync", "async"):
            mode = "geo"  # (Paddle: a_sync with k_steps > 0)
        if mode not in ("sync", "async", "geo"):
            raise ValueError(f"DistributedMinimizer: mode is 'sync', 'async' or 'geo', got "
                             f"{mode!r}")
        if mode == "geo" and k_steps < 1:
            raise ValueError("DistributedMinimizer: geo mode syncs every k_steps steps; give "
                             "k_steps > 0")
        kind = _server_kind(optimizer)
        if mode == "geo" and kind != "sgd":
            raise ValueError(f"DistributedMinimizer: geo mode trains the trainer's copies with "
                             f"SGD (Paddle's GeoSGD), not {type(optimizer).__name__}")
        self._optimizer, self.mode, self.k_steps = optimizer, mode, k_steps
        self.tables = []

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Appends the backward and the optimizer's updates to loss's program, then splits
        it and ``startup_program`` (default: the current startup program) in place;
        returns (the ps ops that now end each step, [(param, grad)]). Raises skiff.Error
        naming the op and the variable for a program it cannot split (a sparse table read
        by another op than embedding, weight decay or clipping of a sparse table, a
        learning-rate schedule); the program then keeps the optimizer's ops."""
        if isinstance(self._optimizer._learning_rate, LRScheduler):
            raise ValueError("DistributedMinimizer: the learning rate is an LRScheduler; the "
                             "parameter servers apply a constant (float) learning rate")
        main = loss.block.program
        startup = startup_program or static.default_startup_program()
        _, params_grads = self._optimizer.minimize(loss, startup, parameters, no_grad_set)
        tables = self._tables(main, startup, params_grads)
        _C.ps_split(main.desc, startup.desc,
                    [(t.param, t.name, t.dim) for t in tables if t.sparse],
                    [(t.param, t.name) for t in tables if not t.sparse], self.mode,
                    self.k_steps)
        _splits.append(_Split(main, self.mode, tables))
        self.tables = tables
        step_ops = [op for op in main.global_block().ops
                    if op.type in ("ps_push_dense", "ps_barrier", "ps_pull_dense",
                                   "ps_geo_step")]
        return step_ops, params_grads

    def _tables(self, main, startup, params_grads):
        sparse = {}  # the sparse tables' parameters: their entries (entry.py)
        for op in main.global_block().ops:
            if op.type == "embedding":
                w = op.input("W")[0]
                var = main._vars.get((0, w))
                if op.attr("is_sparse") or getattr(var, "is_distributed", False):
                    sparse[w] = getattr(var, "ps_entry", None)
        tables = []
        for param, _ in params_grads:
            shape = list(param.shape)
            if param._dtype_name != "float32":
                raise ValueError(f"DistributedMinimizer: parameter '{param.name}' is "
                                 f"{param._dtype_name}; the parameter servers hold float32")
            optimizer = _server_optimizer(self._optimizer, param)
            admission = None
            if param.name in sparse:
                init = _sparse_init(startup, param.name)
                admission = table_config(sparse[param.name], f"sparse table '{param.name}'")
            else:
                init = default_init(shape, param.name)  # replaced by trainer 0's values
            tables.append(Table(param.name, shape, param.name in sparse, init, optimizer,
                                admission))
        return tables


def _server_kind(optimizer):
    """The servers' name for ``optimizer``'s update rule (ValueError if they lack it)."""
    kinds = {opt.SGD: "sgd", opt.Adam: "adam", opt.Adagrad: "adagrad"}
    kind = kinds.get(type(optimizer))
    if kind is None:
        raise ValueError(f"DistributedMinimizer: the parameter servers apply SGD, Adam or "
                         f"Adagrad, not {type(optimizer).__name__}")
    return kind


def _server_optimizer(optimizer, param):
    """The servers' optimizer dict for ``param``: the optimizer's rule, with its group's
    options and the parameter's learning-rate factor."""
    kind = _server_kind(optimizer)
    group = next((g for g in optimizer._param_groups
                  if any(p is param for p in g["params"])), dict(optimizer._defaults))
    config = {"kind": kind,
              "lr": float(optimizer._learning_rate) * optimizer._lr_scale(param, group)}
    if kind == "adam":
        if group["amsgrad"]:
            raise ValueError(f"DistributedMinimizer: parameter '{param.name}': the parameter "
                             f"servers apply Adam without amsgrad")
        config.update(beta1=group["beta1"], beta2=group["beta2"], epsilon=group["epsilon"])
    elif kind == "adagrad":
        config.update(epsilon=group["epsilon"],
                      initial_g2sum=group["initial_accumulator_value"])
    return config


def _sparse_init(startup, name):
    """The servers' initializer of sparse table ``name`` from the startup program's op
    that fills its parameter (through an assign), seeded by the table's name."""
    ops = startup.global_block().ops
    writer = next((op for op in reversed(ops) if name in op.output_arg_names), None)
    if writer is not None and writer.type == "assign":
        source = writer.input("X")[0]
        writer = next((op for op in reversed(ops[:writer.idx])
                       if source in op.output_arg_names), None)
    seed = zlib.crc32(name.encode())
    kind = writer.type if writer is not None else None
    if kind == "uniform_random":
        return {"kind": "uniform", "low": writer.attr("min"), "high": writer.attr("max"),
                "seed": seed}
    if kind == "gaussian_random":
        return {"kind": "normal", "mean": writer.attr("mean"), "std": writer.attr("std"),
                "seed": seed}
    if kind == "fill_constant":
        return {"kind": "constant", "value": writer.attr("value")}
    if kind == "truncated_gaussian_random":
        mean, std = writer.attr("mean"), writer.attr("std")
        if math.isclose(writer.attr("a"), mean - 2 * std, abs_tol=1e-6) and math.isclose(
                writer.attr("b"), mean + 2 * std, abs_tol=1e-6):
            return {"kind": "truncated_normal", "mean": mean, "std": std, "seed": seed}
    raise ValueError(f"DistributedMinimizer: sparse table '{name}' is initialised by "
                     f"{f'op {kind!r}' if kind else 'no op'} of the startup program; the "
                     f"parameter servers make rows with a Uniform, Normal, Constant or "
                     f"TruncatedNormal (within 2 std) initializer")


def pending():
    """True when a program was split and its tables are not created yet (init_worker)."""
    return any(not s.created for s in _live_splits())


def init_worker(connection=None, first_step=0, scope=None):
    """Creates the tables of the split programs (those still alive) on the servers of
    ``connection`` (default: ps.init()'s), sets the dense tables to trainer 0's values from
    ``scope`` (default: the global scope; run the startup program first), meets every
    trainer, pulls the dense values into the scope and connects the ps ops, whose first
    step is ``first_step`` (sync mode: above the servers' last applied step); in geo mode
    the pulled values are the bases of the trainer's first sync."""
    connection = client.connection(connection)
    scope = scope or static.global_scope()
    splits = _live_splits()
    if not splits:
        raise ValueError("init_worker: no program was split; call "
                         "DistributedMinimizer(optimizer).minimize(loss) first")
    for split in splits:
        if split.mode != connection.mode:
            raise ValueError(f"init_worker: a program was split for {split.mode} mode but the "
                             f"connection is in {connection.mode} mode")
    tables = [t for s in splits for t in s.tables]
    for split in splits:
        if not split.created:
            for table in split.tables:
                table.create(connection)
            split.created = True
    dense = [t for t in tables if not t.sparse]
    if connection.trainer_id == 0:
        for table in dense:
            value = scope.get(table.param)
            if value is None:
                raise RuntimeError(f"init_worker: dense parameter '{table.param}' has no value "
                                   f"in the scope; run the startup program first")
            values = np.ascontiguousarray(value.numpy(), dtype=np.float32).reshape(-1)
            connection.client.assign_dense(table.name, values)
    connection.meet(int(first_step) - 1)
    _C.ps_ops_connect(connection.client, {t.name: t.width for t in tables}, int(first_step))
    _pull_dense(connection, dense, scope)


def _pull_dense(connection, dense, scope):
    """Sets the dense parameters in ``scope`` to the servers' values; in geo mode they are
    the bases of the next sync (the trainer's rows and carries are dropped)."""
    bases = {}
    for table in dense:
        values = connection.client.pull_dense(table.name, table.width)
        scope.set(table.param, values.reshape(table.shape))
        bases[table.name] = values
    if connection.mode == "geo":
        _C.ps_ops_geo(0, connection.trainers, bases)


def _geo_dense():
    """The dense tables of the split geo programs."""
    return [t for s in _live_splits() if s.mode == "geo" for t in s.tables if not t.sparse]


def flush(scope=None):
    """Geo mode, after a trainer's last step: sends the servers its share of what its copies
    moved since the last sync (the dense parameters' values in ``scope``, default the
    global scope) and drops the carries. Nothing in sync and async mode."""
    if not any(s.mode == "geo" and s.created for s in _live_splits()):
        return
    scope = scope or static.global_scope()
    values = {t.name: np.ascontiguousarray(scope.get(t.param).numpy(), np.float32).reshape(-1)
              for t in _geo_dense()}
    _C.ps_ops_geo_sync(0, values, final=True)


def refresh(connection=None, scope=None):
    """Geo mode, once every trainer flushed (a meeting): takes the servers' dense values
    into ``scope`` and forgets the trainer's rows, so the next lookups pull the job's
    result."""
    connection = client.connection(connection)
    if connection.mode == "geo":
        _pull_dense(connection, _geo_dense(), scope or static.global_scope())


def stop_worker():
    """Disconnects the ps ops (they fail until the next init_worker); the servers keep
    running. (Geo mode: flush() first.)"""
    _C.ps_ops_disconnect()
