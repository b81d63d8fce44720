"""fleet (Paddle's paddle.distributed.fleet). Collective mode: the same data-parallel
training as DataParallel, through the names Paddle's collective scripts use.

    from skiff.distributed import fleet
    fleet.init(is_collective=True)
    model = fleet.distributed_model(model)
    opt = fleet.distributed_optimizer(opt)

In static mode ``distributed_optimizer(opt).minimize(loss)`` writes the data parallelism
into the program: each gradient is averaged over the ranks by a c_allreduce_avg op before
the updates, and the startup program broadcasts rank 0's parameters. Such a program runs
data-parallel in the executor and compiled (``skiff compile``).

Parameter-server mode (``fleet.init(is_collective=False)``, or a role maker that is not
collective): servers and trainers of one script, see ps_mode.py. The functions below
answer for the mode fleet.init entered.
"""
from ... import _C_ops
from .. import collective
from ...framework.core import apply
from ...framework.mode import mode
from ... import static
from ..parallel import DataParallel
from . import ps_mode
from .role_maker import PaddleCloudRoleMaker, Role, UserDefinedRoleMaker
from .strategy import DistributedStrategy
from .topology import AXES, CommunicateTopology, HybridCommunicateGroup, ParallelMode
from ..sharding import (GroupShardedOptimizerStage3, GroupShardedStage2, GroupShardedStage3,
                        ShardingOptimizer)
from .hybrid_optimizer import HybridParallelOptimizer
from .meta_parallel.pipeline_parallel import PipelineParallel
from .meta_parallel.tensor_parallel import TensorParallel, broadcast_replicated
from . import meta_parallel, utils

__all__ = ["init", "DistributedStrategy", "distributed_model", "distributed_optimizer",
           "get_hybrid_communicate_group", "CommunicateTopology", "HybridCommunicateGroup",
           "ParallelMode",
           "worker_index", "worker_num", "is_first_worker", "barrier_worker", "Role",
           "PaddleCloudRoleMaker", "UserDefinedRoleMaker", "is_server", "is_worker",
           "server_index", "server_num", "server_endpoints", "worker_endpoints",
           "init_server", "run_server", "init_worker", "stop_worker", "save_persistables",
           "shrink"]


class _Fleet:
    strategy = None
    hcg = None
    sharded_model = None  # what distributed_model made, for a sharded optimizer


def init(role_maker=None, is_collective=False, strategy=None):
    """Collective mode when ``is_collective`` (or ``role_maker.is_collective``): joins the
    launcher's job. Otherwise parameter-server mode with ``role_maker`` (default: a
    PaddleCloudRoleMaker reading the environment; outside a parameter-server job it fails
    saying so)."""
    if role_maker is not None:
        is_collective = getattr(role_maker, "is_collective", False)
    if not is_collective:
        ps_mode.init(role_maker, strategy)
        _Fleet.strategy = None
        return
    ps_mode.reset()
    _Fleet.strategy = strategy or DistributedStrategy()
    # The layout is checked against the launcher's world before any collective runs.
    env = collective.ParallelEnv()
    dp, pp, sharding, mp = _Fleet.strategy.degrees(env.world_size)
    collective.init_parallel_env()
    _Fleet.hcg = HybridCommunicateGroup(CommunicateTopology(AXES, [dp, pp, sharding, mp]))


def get_hybrid_communicate_group():
    """The job's HybridCommunicateGroup (fleet.init(is_collective=True) makes it)."""
    if _Fleet.hcg is None:
        raise RuntimeError("fleet.get_hybrid_communicate_group: call "
                           "fleet.init(is_collective=True, strategy=...) first")
    return _Fleet.hcg


def _strategy():
    if _Fleet.strategy is None:
        raise RuntimeError("fleet: call fleet.init(is_collective=True) first")
    return _Fleet.strategy


def distributed_model(model):
    """The wrapper the layout calls for: PipelineParallel with a pipe degree above 1 (the
    model a PipelineLayer), TensorParallel with a model-parallel degree above 1, else
    DataParallel over the data-parallel group (parameter-server mode: its own)."""
    if ps_mode.active():
        return ps_mode.distributed_model(model)
    s = _strategy()
    hcg = _Fleet.hcg
    if hcg is not None and hcg.get_sharding_parallel_world_size() > 1:
        return _sharded_model(model, hcg, s)
    if hcg is not None and hcg.get_pipe_parallel_world_size() > 1:
        broadcast_replicated(model, hcg)
        return PipelineParallel(model, hcg, s)
    if hcg is not None and hcg.get_model_parallel_world_size() > 1:
        return TensorParallel(model, hcg, s)
    group = hcg.get_data_parallel_group() if hcg is not None else None
    return DataParallel(model, comm_buffer_size=s.fuse_grad_size_in_MB,
                        last_comm_buffer_size=s.last_comm_group_size_MB,
                        find_unused_parameters=s.find_unused_parameters, group=group)


def _sharded_model(model, hcg, strategy):
    """The model of sharding stage strategy.sharding_configs['stage'] over the sharding
    group (gradients averaged over the data-parallel group too)."""
    if hcg.get_model_parallel_world_size() > 1 or hcg.get_pipe_parallel_world_size() > 1:
        raise ValueError("fleet: sharding_degree > 1 together with mp_degree or pp_degree is "
                         "not supported; shard a data-parallel layout (sharding_degree x "
                         "dp_degree)")
    group, dp_group = hcg.get_sharding_parallel_group(), hcg.get_data_parallel_group()
    if strategy.sharding_configs["stage"] == 3:
        _Fleet.sharded_model = GroupShardedStage3(model, group, dp_group)
    else:
        _Fleet.sharded_model = GroupShardedStage2(model, group, dp_group)
    return _Fleet.sharded_model


def _sharded_optimizer(optimizer, hcg, strategy):
    model = _Fleet.sharded_model
    if model is None:
        raise RuntimeError("fleet.distributed_optimizer: with sharding_degree > 1 call "
                           "fleet.distributed_model(model) first")
    stage = strategy.sharding_configs["stage"]
    if stage == 3:
        return GroupShardedOptimizerStage3(optimizer, model)
    return ShardingOptimizer(optimizer, hcg.get_sharding_parallel_group(),
                             hcg.get_data_parallel_group(), shard_gradients=stage == 2)


def distributed_optimizer(optimizer, strategy=None):
    if ps_mode.active():
        return ps_mode.distributed_optimizer(optimizer, strategy)
    if strategy is not None:
        _Fleet.strategy = strategy
    _strategy()
    if mode.static:
        return _StaticDataParallelOptimizer(optimizer)
    hcg = _Fleet.hcg
    if hcg is not None and hcg.get_sharding_parallel_world_size() > 1:
        return _sharded_optimizer(optimizer, hcg, _Fleet.strategy)
    if hcg is not None and (hcg.get_model_parallel_world_size() > 1
                            or hcg.get_pipe_parallel_world_size() > 1):
        return HybridParallelOptimizer(optimizer, hcg, _Fleet.strategy)
    return optimizer  # DataParallel's backward already averaged the gradients


class _StaticDataParallelOptimizer:
    """``optimizer`` whose static minimize averages each gradient over the ranks."""

    def __init__(self, optimizer):
        self._inner = optimizer

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        main = loss.block.program
        startup = startup_program or static.default_startup_program()
        with static.program_guard(main, startup):
            params_grads = self._inner.backward(loss, startup, parameters, no_grad_set)
            for _, grad in params_grads:
                collective.all_reduce(grad, collective.ReduceOp.AVG)
            first = len(main.global_block().ops)
            self._inner.apply_gradients(params_grads)
        if collective.get_world_size() > 1:  # every rank starts from rank 0's parameters
            with static.program_guard(startup), startup._block_guard(0):
                for param, _ in params_grads:
                    var = startup._variable(0, param.name)
                    _C_ops.c_broadcast(var, ring_id=0, root=0, out=[var])
        return list(main.global_block().ops[first:]), params_grads


def worker_index():
    return ps_mode.worker_index() if ps_mode.active() else collective.get_rank()


def worker_num():
    return ps_mode.worker_num() if ps_mode.active() else collective.get_world_size()


def is_first_worker():
    return ps_mode.is_first_worker() if ps_mode.active() else worker_index() == 0


def barrier_worker():
    if ps_mode.active():
        ps_mode.barrier_worker()
    else:
        collective.barrier()


def is_worker():
    """Parameter-server mode: whether this process is a trainer; collective: True."""
    return ps_mode.is_worker() if ps_mode.active() else True


def is_server():
    """Parameter-server mode: whether this process is a server; collective: False."""
    return ps_mode.is_server() if ps_mode.active() else False


# Parameter-server mode only (they fail clearly before fleet.init(is_collective=False)).
server_index = ps_mode.server_index
server_num = ps_mode.server_num
server_endpoints = ps_mode.server_endpoints
worker_endpoints = ps_mode.worker_endpoints
def save_persistables(executor=None, dirname=None, main_program=None, mode=0):
    """Parameter-server mode: the servers save every table into ``dirname`` (see
    ps_mode.save_persistables)."""
    if not ps_mode.active():
        raise RuntimeError("fleet.save_persistables saves a parameter-server job's tables "
                           "(fleet.init(is_collective=False)); in collective mode save the "
                           "model with skiff.save or skiff.static.save")
    ps_mode.save_persistables(executor, dirname, main_program, mode)


shrink = ps_mode.shrink
init_server = ps_mode.init_server
run_server = ps_mode.run_server
init_worker = ps_mode.init_worker
stop_worker = ps_mode.stop_worker
