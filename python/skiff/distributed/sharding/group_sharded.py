"""group_sharded_parallel and save_group_sharded_model (Paddle's
paddle.distributed.sharding): a model and its optimizer set up for one of the three
sharding levels, and one ordinary checkpoint of such a model.

    model, opt, scaler = group_sharded_parallel(model, opt, level="os_g")
    loss = loss_fn(model(x)); loss.backward(); opt.step(); opt.clear_grad()
    save_group_sharded_model(model, "ckpt", opt)   # ckpt/model.pdparams, ckpt/model.pdopt
"""
import os

from ...framework.io import save
from ...nn import Layer
from ...optimizer import Optimizer
from .. import collective
from .partition import trainable_parameters
from .sharding_optimizer import ShardingOptimizer
from .stage2_model import GroupShardedStage2
from .stage3_model import GroupShardedStage3
from .stage3_optimizer import GroupShardedOptimizerStage3

__all__ = ["group_sharded_parallel", "save_group_sharded_model"]

LEVELS = ("os", "os_g", "p_g_os")


def _check_parameters(model, optimizer):
    in_optimizer = {id(p) for p in optimizer._parameter_list or []}
    in_model = {id(p) for p in model.parameters()}
    for p in trainable_parameters(model):
        if id(p) not in in_optimizer:
            raise ValueError(f"group_sharded_parallel: parameter '{p.name}' of the model is "
                             f"not in the optimizer's parameters")
    for p in optimizer._parameter_list or []:
        if id(p) not in in_model:
            raise ValueError(f"group_sharded_parallel: the optimizer's parameter '{p.name}' "
                             f"is not a parameter of the model")


def group_sharded_parallel(model, optimizer, level, scaler=None, group=None, offload=False,
                           sync_buffers=False, buffer_max_size=2**23, segment_size=2**20,
                           sync_comm=False, dp_group=None, exclude_layer=None):
    """(model, optimizer, scaler) sharded over ``group`` (default: the world) at ``level``:
    'os' shards the optimizer state, 'os_g' also the gradients, 'p_g_os' also the
    parameters (those of at least ``segment_size`` elements). Gradients are averaged over
    ``dp_group`` too when given. Communication is synchronous and tensors stay in host
    memory, so ``offload``, ``buffer_max_size`` and ``sync_comm`` change nothing; the
    scaler is returned as given."""
    if level not in LEVELS:
        raise ValueError(f"group_sharded_parallel: level {level!r} is not one of "
                         f"{', '.join(repr(v) for v in LEVELS)}")
    if not isinstance(model, Layer):
        raise TypeError(f"group_sharded_parallel: model must be a skiff.nn.Layer, got "
                        f"{type(model).__name__}")
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"group_sharded_parallel: optimizer must be a skiff.optimizer."
                        f"Optimizer, got {type(optimizer).__name__}")
    if exclude_layer:
        raise ValueError("group_sharded_parallel: exclude_layer is not supported")
    if not isinstance(segment_size, int) or segment_size < 1:
        raise ValueError(f"group_sharded_parallel: segment_size must be a positive integer, "
                         f"got {segment_size!r}")
    group = group or collective._world()
    if not group.is_member():
        raise ValueError(f"group_sharded_parallel: this rank is not in {group}")
    _check_parameters(model, optimizer)
    if level == "p_g_os":
        model = GroupShardedStage3(model, group, dp_group, segment_size, sync_buffers)
        return model, GroupShardedOptimizerStage3(optimizer, model), scaler
    model = GroupShardedStage2(model, group, dp_group, sync_buffers)
    return model, ShardingOptimizer(optimizer, group, dp_group, level == "os_g"), scaler


def save_group_sharded_model(model, output, optimizer=None):
    """Writes ``output``/model.pdparams (and ``output``/model.pdopt with ``optimizer``):
    the whole model and optimizer state, as one process would save them. Every rank of the
    group must call it; the first rank of the group (and of the data-parallel group) writes."""
    if not isinstance(model, (GroupShardedStage2, GroupShardedStage3)):
        raise TypeError(f"save_group_sharded_model: model must be what "
                        f"group_sharded_parallel returned, got {type(model).__name__}")
    if os.path.isfile(output):
        raise ValueError(f"save_group_sharded_model: output {output!r} is a file; it must "
                         f"be a directory")
    params = model.full_state_dict()
    state = optimizer.full_state_dict() if optimizer is not None else None
    dp = model._dp_group
    if model._group.rank == 0 and (dp is None or dp.rank == 0):
        os.makedirs(output, exist_ok=True)
        save(params, os.path.join(output, "model.pdparams"))
        if state is not None:
            save(state, os.path.join(output, "model.pdopt"))

