"""Distributed training (Paddle's paddle.distributed): collectives over Gloo with etcd
for rendezvous, DataParallel, the launcher (python -m skiff.distributed.launch) and
fleet's collective mode. See docs/distributed.md."""
from .collective import (CommunicationError, Group, ReduceOp, all_gather, all_gather_object,
                         all_reduce, alltoall, barrier, broadcast, destroy_process_group,
                         get_group, get_rank, get_world_size, init_parallel_env, irecv,
                         is_initialized, isend, new_group, recv, reduce, reduce_scatter,
                         scatter, send)
from .env import ParallelEnv
from .parallel import DataParallel, sync_params_buffers
from . import fleet, sharding
from .checkpoint import load_state_dict, save_state_dict
from ..static.nn.entry import CountFilterEntry, ProbabilityEntry

__all__ = ["CommunicationError", "Group", "ReduceOp", "all_gather", "all_gather_object",
           "all_reduce", "alltoall", "barrier", "broadcast", "destroy_process_group",
           "get_group", "get_rank", "get_world_size", "init_parallel_env", "irecv",
           "is_initialized", "isend", "new_group", "recv", "reduce", "reduce_scatter",
           "scatter", "send", "ParallelEnv", "DataParallel", "sync_params_buffers", "fleet",
           "CountFilterEntry", "ProbabilityEntry", "save_state_dict", "load_state_dict", "sharding"]
