"""fleet's parameter-server mode (Paddle's fleet with is_collective=False): one script runs
as every server and every trainer of the job, each told its part by a role maker.

    python -m skiff.distributed.launch --server_num 2 --trainer_num 2 train.py

    fleet.init(is_collective=False, strategy=strategy)   # role from the environment
    if fleet.is_server():
        fleet.init_server()
        fleet.run_server()               # serves its shard until the trainers stop it
    else:
        fleet.init_worker()              # connects, in the strategy's mode
        model = fleet.distributed_model(CTR(ps.DistributedEmbedding("emb", 8)))
        opt = fleet.distributed_optimizer(skiff.optimizer.SGD(0.1, model.parameters()))
        for ids, label in batches:
            loss_fn(model(ids), label).backward()
            opt.step()
            opt.clear_grad()
        fleet.stop_worker()              # every trainer meets; trainer 0 stops the servers

The mode comes from the strategy (DistributedStrategy.ps_mode): a_sync False is "sync",
a_sync True "async", a_sync True with a_sync_configs k_steps > 0 "geo".

In static mode distributed_optimizer returns skiff.distributed.ps.program's
DistributedMinimizer, whose minimize rewrites the program for the servers; init_worker
then hands the connection to that module. In dygraph it returns a PsOptimizer
(ps_optimizer.py) that trains the model given to distributed_model.

Meetings: barrier_worker() and stop_worker() meet the trainers at steps of their own
(from 2**62 up), above every training step. The servers count steps forward only, so a
sync-mode step after a barrier_worker() would never be applied: in sync mode call
barrier_worker() once training is over (the PsOptimizer refuses a sync step after one; a
ps.Trainer of your own cannot tell). In every mode, give fleet the model before the first
barrier_worker() (trainer 0's dense values are handed over at a meeting of step -1). Until
a trainer has created a table the servers do not know the number of trainers, and a
meeting returns at once.
"""
import importlib
import os
import warnings

from ...framework.mode import mode as _framework_mode
from .. import ps
from .ps_optimizer import PsOptimizer
from .role_maker import PaddleCloudRoleMaker, UserDefinedRoleMaker
from .strategy import DistributedStrategy

__all__ = ["init", "active", "reset", "is_server", "is_worker", "is_first_worker",
           "worker_index", "worker_num", "server_index", "server_num", "server_endpoints",
           "worker_endpoints", "init_server", "run_server", "init_worker", "stop_worker",
           "barrier_worker", "save_persistables", "shrink", "distributed_optimizer",
           "distributed_model"]

CONNECT_SECS = 60.0  # how long a trainer waits for the servers to come up
FIRST_MEETING_STEP = 2**62


class _State:
    role = None          # the role maker; None outside parameter-server mode
    strategy = None
    mode, k_steps = "async", 0
    load_dir, load_tables = None, []  # a server's init_server(dirname, var_names)
    connection = None    # this trainer's, from init_worker
    optimizer = None     # the PsOptimizer of distributed_optimizer (dygraph)
    model = None         # the model of distributed_model
    program = None       # ps.program, once distributed_optimizer split a static program
    meetings = 0


def init(role_maker=None, strategy=None):
    """Enters parameter-server mode with ``role_maker`` (default: PaddleCloudRoleMaker,
    from the environment) and ``strategy`` (default: a DistributedStrategy, async)."""
    if role_maker is None:
        role_maker = PaddleCloudRoleMaker(is_collective=False)
    if not isinstance(role_maker, (PaddleCloudRoleMaker, UserDefinedRoleMaker)):
        raise TypeError(f"fleet.init: role_maker must be a PaddleCloudRoleMaker or a "
                        f"UserDefinedRoleMaker, got {type(role_maker).__name__}")
    strategy = strategy if strategy is not None else DistributedStrategy()
    mode, k_steps = _mode_of(strategy)
    reset()
    _State.role, _State.strategy, _State.mode, _State.k_steps = role_maker, strategy, mode, \
        k_steps


def active():
    """True after fleet.init in parameter-server mode."""
    return _State.role is not None


def reset():
    """Leaves parameter-server mode (the connection is dropped; servers keep running)."""
    if _State.connection is not None:
        ps.shutdown()
    _State.role = _State.strategy = _State.connection = _State.optimizer = _State.model = None
    _State.program = _State.load_dir = None
    _State.load_tables = []
    _State.mode, _State.k_steps, _State.meetings = "async", 0, 0


def _mode_of(strategy):
    if not isinstance(strategy, DistributedStrategy):
        raise TypeError(f"fleet: strategy must be a fleet.DistributedStrategy, got "
                        f"{type(strategy).__name__}")
    return strategy.ps_mode()


def _role(what):
    if _State.role is None:
        raise RuntimeError(f"fleet.{what}: call fleet.init(is_collective=False) first "
                           f"(parameter-server mode)")
    return _State.role


def _worker(what):
    role = _role(what)
    if not role.is_worker():
        raise RuntimeError(f"fleet.{what}: this process is server {role.server_index()}; "
                           f"only trainers call it")
    return role


def _server(what):
    role = _role(what)
    if not role.is_server():
        raise RuntimeError(f"fleet.{what}: this process is trainer {role.worker_index()}; "
                           f"only servers call it")
    return role


def _connection(what):
    _worker(what)
    if _State.connection is None:
        raise RuntimeError(f"fleet.{what}: call fleet.init_worker() first")
    return _State.connection


def is_server():
    return _role("is_server").is_server()


def is_worker():
    return _role("is_worker").is_worker()


def is_first_worker():
    return _role("is_first_worker").is_first_worker()


def worker_index():
    return _role("worker_index").worker_index()


def worker_num():
    return _role("worker_num").worker_num()


def server_index():
    return _role("server_index").server_index()


def server_num():
    return _role("server_num").server_num()


def server_endpoints(to_string=False):
    endpoints = _role("server_endpoints").server_endpoints()
    return ",".join(endpoints) if to_string else endpoints


def worker_endpoints(to_string=False):
    endpoints = _role("worker_endpoints").worker_endpoints()
    return ",".join(endpoints) if to_string else endpoints


def init_server(dirname=None, var_names=None):
    """Prepares this server. With ``dirname`` (a folder a job of as many servers saved with
    fleet.save_persistables or ps.save) the tables the trainers create start from their
    shards saved there (only ``var_names``, table names, when given; the others fresh), and
    trainer 0's initial dense values do not replace them: training goes on from the saved
    job. run_server() serves them."""
    role = _server("init_server")
    if dirname is not None and not os.path.isdir(dirname):
        raise ValueError(f"fleet.init_server: {dirname!r} is not a folder (server "
                         f"{role.server_index()})")
    if var_names is not None and dirname is None:
        raise ValueError("fleet.init_server: var_names selects tables of dirname; give the "
                         "folder too")
    _State.load_dir = None if dirname is None else os.fspath(dirname)
    _State.load_tables = [str(v) for v in var_names or ()]


def run_server():
    """Serves this server's shard on its endpoint (the tables starting from init_server's
    folder) until the trainers stop the servers (stop_worker), SIGTERM or SIGINT; then
    returns. Under a launcher given
    --ps_checkpoint_dir it checkpoints there and starts from the last checkpoint."""
    from ..ps.server import serve  # noqa: PLC0415  (`python -m ...ps.server` runs it as __main__)

    role = _server("run_server")
    host, _, port = role.current_endpoint().rpartition(":")
    # The launcher's --ps_checkpoint_dir: checkpoints, and a restart resumes from them.
    serve(role.server_index(), role.server_num(), host, int(port),
          checkpoint_dir=os.environ.get("SKIFF_PS_CHECKPOINT_DIR", ""),
          checkpoint_secs=float(os.environ.get("SKIFF_PS_CHECKPOINT_SECS", "30")),
          load_dir=_State.load_dir or "", load_tables=_State.load_tables)


def init_worker(scopes=None):
    """Connects this trainer to the servers in the strategy's mode (the default ps
    connection); then hands it to the program rewritten by a DistributedMinimizer, or
    binds the PsOptimizer to the model, when there is one."""
    role = _worker("init_worker")
    if _State.connection is not None:
        raise RuntimeError("fleet.init_worker: called twice")
    _State.connection = ps.init(role.server_endpoints(), role.worker_index(), role.worker_num(),
                                mode=_State.mode, connect_secs=CONNECT_SECS)
    # (only a program this fleet session split: others may linger in the process)
    program = _State.program
    if program is not None and program.pending():
        program.init_worker(_State.connection)
    _bind()


def stop_worker():
    """Sends this trainer's last geo deltas (GeoTrainer.finish, or a split program's
    flush), meets every trainer, and
    trainer 0 then stops the servers (their processes exit with status 0); the ps ops of a
    split program are disconnected."""
    connection = _connection("stop_worker")
    _flush()
    _meet(connection)
    if connection.trainer_id == 0:
        connection.stop_servers()
    if _State.program is not None:
        _State.program.stop_worker()  # a split program's ps ops let go of the connection
    ps.shutdown()
    _State.connection = None


def save_persistables(executor=None, dirname=None, main_program=None, mode=0):
    """Every server writes its shard of every table (values and optimizer state) into
    ``dirname``, a folder they can reach, atomically per file; a job of as many servers
    starts from it with fleet.init_server(dirname). Call it from one trainer (usually
    fleet.is_first_worker()) after a barrier_worker() when the others' last updates must be
    in (geo mode: their last deltas). ``executor``, ``main_program`` and ``mode`` are
    Paddle's and change nothing: every parameter of a split program is on the servers."""
    connection = _connection("save_persistables")
    if dirname is None:
        raise ValueError("fleet.save_persistables: give dirname, the folder to save into")
    if mode not in (0, None):
        raise ValueError(f"fleet.save_persistables: mode {mode!r}; the servers save whole "
                         f"tables (mode 0)")
    os.makedirs(dirname, exist_ok=True)
    connection.save(os.path.abspath(dirname))


def shrink(threshold=None, untouched_secs=None):
    """Evicts the rows of the job's sparse tables that no trainer touched for
    ``untouched_secs`` seconds (default: each table's ttl_secs; tables without one keep
    their rows) and returns how many, over all servers: a table of an unbounded id space
    stays bounded. Paddle's ``threshold`` scores rows by a CTR accessor's show/click
    statistics, which skiff's tables do not keep; as Paddle's memory tables do, it is
    ignored with a warning."""
    connection = _connection("shrink")
    if threshold is not None:
        warnings.warn("fleet.shrink: threshold (a CTR accessor's score) is not used by "
                      "skiff's tables, which evict rows by age; pass untouched_secs",
                      stacklevel=2)
    return connection.shrink(untouched_secs)


def barrier_worker():
    """Sends this trainer's last geo deltas (GeoTrainer.finish, or a split program's
    flush), meets every trainer, then takes the servers' values (which then hold every trainer's updates). See the module's
    note on sync mode."""
    connection = _connection("barrier_worker")
    _flush()
    _meet(connection)
    if _State.optimizer is not None:
        _State.optimizer.refresh()
    if _State.program is not None:
        _State.program.refresh(connection)


def _flush():
    """Geo mode: the trainer's last deltas (a GeoTrainer's, a split program's)."""
    if _State.optimizer is not None:
        _State.optimizer.flush()
    if _State.program is not None:
        _State.program.flush()


def _meet(connection):
    step = FIRST_MEETING_STEP + _State.meetings
    _State.meetings += 1
    if _State.optimizer is not None:
        _State.optimizer.steps_closed = True
    connection.meet(step)


def distributed_optimizer(optimizer, strategy=None):
    """Static mode: ps.program.DistributedMinimizer(optimizer, mode, k_steps). Dygraph: a
    PsOptimizer training the model of distributed_model (see ps_optimizer.py). A
    ``strategy`` given here replaces fleet.init's (before init_worker only)."""
    _role("distributed_optimizer")
    if strategy is not None:
        mode, k_steps = _mode_of(strategy)
        if _State.connection is not None and (mode, k_steps) != (_State.mode, _State.k_steps):
            raise RuntimeError(f"fleet.distributed_optimizer: the strategy asks for {mode} mode "
                               f"but init_worker() connected in {_State.mode} mode; pass the "
                               f"strategy before init_worker()")
        _State.strategy, _State.mode, _State.k_steps = strategy, mode, k_steps
    if _framework_mode.static:
        _State.program = _program_module()
        return _State.program.DistributedMinimizer(optimizer, _State.mode, _State.k_steps)
    _State.optimizer = PsOptimizer(optimizer, _State.mode, _State.k_steps)
    _bind()
    return _State.optimizer


def distributed_model(model):
    """Dygraph: gives ``model`` to the PsOptimizer of distributed_optimizer (in either
    order, after init_worker); returns it unchanged."""
    _role("distributed_model")
    _State.model = model
    _bind()
    return model


def _bind():
    if None not in (_State.optimizer, _State.model, _State.connection) and \
            _State.optimizer.driver is None:
        if _State.meetings:
            raise RuntimeError("fleet: give the model (distributed_model) and the optimizer "
                               "(distributed_optimizer) before the first barrier_worker(): "
                               "trainer 0's dense values are handed over at an earlier "
                               "meeting")
        _State.optimizer.bind(_State.model, _State.connection)


def _program_module():
    """skiff.distributed.ps.program, imported when a static program is first split."""
    return importlib.import_module(f"{ps.__name__}.program")
