"""A trainer's connection to the parameter servers of its job: ``init()`` makes the
default one, which the layers and the Trainer use unless given another."""
import os

from ... import _C

__all__ = ["Connection", "init", "connection", "barrier", "save", "load", "info", "shrink",
           "stop_servers", "shutdown"]

MODES = ("sync", "async", "geo")


def _from_env(value, key, convert, what):
    if value is not None:
        return value
    if key not in os.environ:
        raise ValueError(f"ps.init: give {what} or set {key}")
    return convert(os.environ[key])


class Connection:
    """The servers at ``endpoints`` ("host:port", in shard order) as seen by trainer
    ``trainer_id`` of ``trainers``, in ``mode`` "sync" (each step's gradients averaged over
    the trainers at its barrier), "async" (applied on arrival) or "geo" (pushes are deltas).
    Fails with skiff.Error naming the endpoints it cannot reach within ``connect_secs``; a
    barrier fails (naming the missing trainers) when some trainer has not reached it
    ``barrier_timeout`` seconds after the first did (0: wait forever). A server that goes
    away is waited for ``recover_secs``: restarted from its checkpoint, it gets this
    trainer's requests since then again (servers without checkpoints end the job)."""

    def __init__(self, endpoints, trainer_id, trainers, mode="sync", connect_secs=10.0,
                 call_secs=0.0, barrier_timeout=300.0, recover_secs=60.0):
        if isinstance(endpoints, str):
            endpoints = endpoints.split(",")
        self.endpoints = [str(e).strip() for e in endpoints]
        self.trainer_id, self.trainers, self.mode = int(trainer_id), int(trainers), mode
        self.barrier_timeout = float(barrier_timeout)
        if mode not in MODES:
            raise ValueError(f"ps.init: mode {mode!r} is not one of {', '.join(MODES)}")
        if not 0 <= self.trainer_id < self.trainers:
            raise ValueError(f"ps.init: trainer_id {self.trainer_id} is not in "
                             f"[0, trainers {self.trainers})")
        if not self.endpoints or not all(self.endpoints):
            raise ValueError(f"ps.init: no server endpoints in {endpoints!r}")
        self._ops = None  # this connection's handle for the ps_* ops, once opened
        self.client = _C.PsClient(endpoints=self.endpoints, trainer=self.trainer_id,
                                  connect_secs=float(connect_secs), call_secs=float(call_secs),
                                  recover_secs=float(recover_secs))

    def create_table(self, name, **config):
        """Creates table ``name`` on every server in this job's mode (or checks that it
        exists with the same configuration); ``config`` as _C.PsClient.create_table."""
        self.client.create_table(name, mode=self.mode, trainers=self.trainers,
                                 barrier_timeout=self.barrier_timeout, **config)

    def ops_connection(self, table=None, width=0):
        """This connection's handle for the ps_* ops (their ``connection`` attr; opened at
        first use, in geo mode with the trainer's copies of skiff/ps_ops/ps_geo.h), with
        ``table`` of ``width`` floats (per row, or in all) usable."""
        if self._ops is None:
            self._ops = _C.ps_ops_open(self.client)
            if self.mode == "geo":
                _C.ps_ops_geo(self._ops, self.trainers, {})
        if table is not None:
            _C.ps_ops_add_table(self._ops, table, int(width))
        return self._ops

    def __del__(self):
        if getattr(self, "_ops", None) is not None and _C is not None:
            try:
                _C.ps_ops_disconnect(self._ops)
            except Exception:  # (the interpreter is exiting)
                pass

    def barrier(self, step):
        """Sync mode: returns once every trainer reached ``step`` and its update is
        applied on every server; other modes: returns at once."""
        if self.mode == "sync":
            self.client.barrier(int(step))

    def meet(self, step):
        """Returns once every trainer reached ``step``, in any mode (steps go forward)."""
        self.client.barrier(int(step))

    def save(self, folder):
        """Every server writes its shard of every table (values and optimizer state)
        into ``folder``, a path the servers can reach."""
        self.client.save(os.fspath(folder))

    def load(self, folder):
        """Every server reads back its shards of the tables created so far."""
        self.client.load(os.fspath(folder))

    def info(self):
        """Each table's counts summed over the servers: dicts of name, rows, pulls,
        pushes, dropped_unadmitted, evicted."""
        return self.client.info()

    def shrink(self, untouched_secs=None):
        """Evicts the rows of every sparse table that no pull or push touched for
        ``untouched_secs`` seconds (default: the table's own ttl_secs; tables without one keep
        their rows); returns how many, over all servers. An evicted id starts over: admitted
        anew, from its initial row."""
        if untouched_secs is not None and not untouched_secs > 0:
            raise ValueError(f"ps.shrink: untouched_secs must be positive seconds, got "
                             f"{untouched_secs!r}")
        return self.client.shrink(float(untouched_secs or 0.0))

    def progress(self):
        """Each server as this trainer sees it, in server order: dicts of endpoint,
        incarnation, checkpointing, checkpoints, restored (the checkpoint it started from),
        applied_step (the last step every trainer met; the least int64 before any),
        pushes_applied (this trainer's, each once), pushes_sent, recoveries and
        unacknowledged (requests kept for replay)."""
        return self.client.progress()

    def stop_servers(self):
        """Tells every server to stop (their processes then exit)."""
        self.client.stop_servers()

    def __repr__(self):
        return (f"ps.Connection(trainer {self.trainer_id} of {self.trainers}, {self.mode}, "
                f"servers {','.join(self.endpoints)})")


_default = None


def init(endpoints=None, trainer_id=None, trainers=None, mode="sync", connect_secs=10.0,
         call_secs=0.0, barrier_timeout=300.0, recover_secs=60.0):
    """Connects this trainer to the servers and makes that the default connection.
    Missing arguments come from Paddle's variables PADDLE_PSERVERS_IP_PORT_LIST,
    PADDLE_TRAINER_ID and PADDLE_TRAINERS_NUM."""
    global _default
    endpoints = _from_env(endpoints, "PADDLE_PSERVERS_IP_PORT_LIST", str, "endpoints")
    trainer_id = _from_env(trainer_id, "PADDLE_TRAINER_ID", int, "trainer_id")
    trainers = _from_env(trainers, "PADDLE_TRAINERS_NUM", int, "trainers")
    _default = Connection(endpoints, trainer_id, trainers, mode, connect_secs, call_secs,
                          barrier_timeout, recover_secs)
    return _default


def connection(given=None):
    """``given``, else the default connection (RuntimeError before ps.init())."""
    if given is not None:
        return given
    if _default is None:
        raise RuntimeError("skiff.distributed.ps: call ps.init(endpoints, trainer_id, "
                           "trainers) first")
    return _default


def barrier(step):
    connection().barrier(step)


def save(folder):
    connection().save(folder)


def load(folder):
    connection().load(folder)


def info():
    return connection().info()


def shrink(untouched_secs=None):
    return connection().shrink(untouched_secs)


def stop_servers():
    connection().stop_servers()


def shutdown():
    """Drops the default connection (the servers keep running)."""
    global _default
    _default = None
