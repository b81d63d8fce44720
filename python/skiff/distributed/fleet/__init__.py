"""fleet's collective mode (Paddle's paddle.distributed.fleet): the same data-parallel
training as DataParallel, through the names Paddle's collective scripts use.

    from skiff.distributed import fleet
    fleet.init(is_collective=True)
    model = fleet.distributed_model(model)
    opt = fleet.distributed_optimizer(opt)
"""
from .. import collective
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
    return optimizer  # DataParallel's backward already averaged the gradients


def worker_index():
    return collective.get_rank()


def worker_num():
    return collective.get_world_size()


def is_first_worker():
    return worker_index() == 0


def barrier_worker():
    collective.barrier()
