"""fleet's collective mode (Paddle's paddle.distributed.fleet): the same data-parallel
training as DataParallel, through the names Paddle's collective scripts use.

    from skiff.distributed import fleet
    fleet.init(is_collective=True)
    model = fleet.distributed_model(model)
    opt = fleet.distributed_optimizer(opt)

In static mode ``distributed_optimizer(opt).minimize(loss)`` writes the data parallelism
into the program: each gradient is averaged over the ranks by a c_allreduce_avg op before
the updates, and the startup program broadcasts rank 0's parameters. Such a program runs
data-parallel in the executor and compiled (``skiff compile``).
"""
from .. import collective
from ...framework.core import apply
from ...framework.mode import mode
from ..parallel import DataParallel

__all__ = ["init", "DistributedStrategy", "distributed_model", "distributed_optimizer",
           "worker_index", "worker_num", "is_first_worker", "barrier_worker"]


class DistributedStrategy:
    """The strategy fields that apply to collective data-parallel training on CPUs:
    ``fuse_grad_size_in_MB`` (bucket size), ``last_comm_group_size_MB``,
    ``find_unused_parameters`` and ``gradient_scale_configs['scale_strategy']`` ("avg",
    the only one: gradients are averaged). Setting a field Paddle has and skiff does not
    apply (amp, recompute, sharding, pipeline, ...) to anything but its default raises."""

    _UNSUPPORTED = ("amp", "recompute", "sharding", "pipeline", "tensor_parallel", "lamb",
                    "lars", "dgc", "localsgd", "gradient_merge", "a_sync")

    def __init__(self):
        self.fuse_grad_size_in_MB = 25
        self.last_comm_group_size_MB = 1
        self.find_unused_parameters = False
        self.gradient_scale_configs = {"scale_strategy": "avg"}
        for name in self._UNSUPPORTED:
            object.__setattr__(self, name, False)

    def __setattr__(self, name, value):
        if name in self._UNSUPPORTED and value:
            raise ValueError(f"DistributedStrategy.{name}: not supported; skiff's "
                             "collective training is data-parallel only")
        if name == "gradient_scale_configs" and value.get("scale_strategy", "avg") != "avg":
            raise ValueError("DistributedStrategy: gradients are averaged "
                             "(scale_strategy 'avg' is the only one)")
        object.__setattr__(self, name, value)


class _Fleet:
    strategy = None


def init(role_maker=None, is_collective=False, strategy=None):
    if not is_collective:
        raise ValueError("fleet.init: only collective mode (is_collective=True) is "
                         "supported; parameter-server mode is not")
    _Fleet.strategy = strategy or DistributedStrategy()
    collective.init_parallel_env()


def _strategy():
    if _Fleet.strategy is None:
        raise RuntimeError("fleet: call fleet.init(is_collective=True) first")
    return _Fleet.strategy


def distributed_model(model):
    s = _strategy()
    return DataParallel(model, comm_buffer_size=s.fuse_grad_size_in_MB,
                        last_comm_buffer_size=s.last_comm_group_size_MB,
                        find_unused_parameters=s.find_unused_parameters)


def distributed_optimizer(optimizer, strategy=None):
    if strategy is not None:
        _Fleet.strategy = strategy
    _strategy()
    if mode.static:
        return _StaticDataParallelOptimizer(optimizer)
    return optimizer  # DataParallel's backward already averaged the gradients


class _StaticDataParallelOptimizer:
    """``optimizer`` whose static minimize averages each gradient over the ranks."""

    def __init__(self, optimizer):
        self._inner = optimizer

    def __getattr__(self, name):
        return getattr(self._inner, name)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        import skiff.static as static
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
                    apply("c_broadcast", var, attrs={"ring_id": 0, "root": 0}, out=[var])
        return list(main.global_block().ops[first:]), params_grads


def worker_index():
    return collective.get_rank()


def worker_num():
    return collective.get_world_size()


def is_first_worker():
    return worker_index() == 0


def barrier_worker():
    collective.barrier()
