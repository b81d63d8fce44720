"""The communication of tensor (model) parallelism (Paddle's fleet.layers.mpu.mp_ops) over
the model-parallel group, each an op with its gradient (ops/model_parallel.cc), so the same
code runs eager and in a static program (to_static):

    _c_identity(x)     forward x,                        backward: all-reduce (sum)
    _mp_allreduce(x)   forward all-reduce (sum),         backward: identity
    _c_split(x)        forward this rank's slice of the last axis, backward: all-gather
    _c_concat(x)       forward all-gather on the last axis,   backward: this rank's slice
    _c_softmax_with_cross_entropy(logits, label)   cross entropy of class-split logits

``group`` defaults to the model-parallel group of fleet's hybrid layout; in a group of
one rank the first four return their input.
"""
from .... import _C_ops
from ... import collective
from ... import fleet
from ....framework.dtype import int32, int64
from ....tensor import amax, exp, log, logical_and, take_along_axis, where, zeros_like

__all__ = ["model_parallel_group", "_c_identity", "_mp_allreduce", "_c_split", "_c_concat",
           "_c_softmax_with_cross_entropy"]


def model_parallel_group(group, what):
    """``group``, else the model-parallel group of fleet.init's hybrid layout; ``what``
    names the caller in the error raised when there is neither."""
    if group is not None:
        return group
    try:
        hcg = fleet.get_hybrid_communicate_group()
    except RuntimeError as e:
        raise RuntimeError(f"{what}: no model-parallel group; call fleet.init(is_collective="
                           f"True, strategy=...) with hybrid_configs first, or pass the "
                           f"group") from e
    return hcg.get_model_parallel_group()


def _c_identity(tensor, group=None):
    """The input, whose gradient is summed over the model-parallel ranks (where a
    replicated activation enters a column-split layer)."""
    group = model_parallel_group(group, "_c_identity")
    return tensor if group.nranks == 1 else _C_ops.c_identity(tensor, ring_id=group.id)


def _mp_allreduce(tensor, group=None):
    """The sum of ``tensor`` over the model-parallel ranks; its gradient passes through
    unchanged (where the partial outputs of a row-split layer meet)."""
    group = model_parallel_group(group, "_mp_allreduce")
    return tensor if group.nranks == 1 else _C_ops.mp_allreduce_sum(tensor, ring_id=group.id)


def _c_split(tensor, group=None):
    """This rank's equal slice of the last axis; the gradient is gathered back whole."""
    group = model_parallel_group(group, "_c_split")
    if group.nranks == 1:
        return tensor
    _divisible(tensor, group, "_c_split")
    return _C_ops.c_split(tensor, ring_id=group.id, rank=group.rank, nranks=group.nranks)


def _c_concat(tensor, group=None):
    """Every rank's ``tensor`` joined along the last axis in rank order; the gradient is
    this rank's slice."""
    group = model_parallel_group(group, "_c_concat")
    if group.nranks == 1:
        return tensor
    return _C_ops.c_concat(tensor, ring_id=group.id, rank=group.rank, nranks=group.nranks)


def _divisible(x, group, what):
    width = x.shape[-1]
    if width % group.nranks:
        raise ValueError(f"{what}: the last dim {width} is not divisible by the model-parallel "
                         f"degree {group.nranks}")


def _c_softmax_with_cross_entropy(logits, label, group=None, ignore_index=-100):
    """The softmax cross entropy, shape [..., 1], of ``logits`` [..., C] split over the
    model-parallel ranks on the class axis and ``label`` [...] or [..., 1] of global class
    ids; a label equal to ``ignore_index`` gives loss 0 and no gradient."""
    group = model_parallel_group(group, "_c_softmax_with_cross_entropy")
    lead = list(logits.shape[:-1])
    if list(label.shape) == lead:
        label = label.unsqueeze(-1)
    if list(label.shape) != lead + [1]:
        raise ValueError(f"_c_softmax_with_cross_entropy: label shape {list(label.shape)} "
                         f"does not match logits shape {list(logits.shape)}; give {lead} or "
                         f"{lead + [1]}")
    if label.dtype not in (int32, int64):
        raise TypeError(f"_c_softmax_with_cross_entropy: label must be int32 or int64, "
                        f"got {label.dtype}")
    # log(sum of exp over every rank's classes) - the target's logit, each rank holding
    # the classes [rank * C, (rank + 1) * C); shifted by the largest logit of all ranks
    # (held constant: the loss does not depend on it) for stability. The gradient, through
    # the sums' identity backward, is softmax - one_hot(label) on this rank's slice.
    width = logits.shape[-1]
    start = group.rank * width
    top = amax(logits.detach(), axis=-1, keepdim=True)
    collective.all_reduce(top, collective.ReduceOp.MAX, group)
    shifted = logits - top
    total = _mp_allreduce(exp(shifted).sum(axis=-1, keepdim=True), group)
    inside = logical_and(label >= start, label < start + width)
    local = where(inside, label - start, zeros_like(label))
    target = take_along_axis(shifted, local, axis=-1) * inside.astype(logits.dtype)
    kept = (label != ignore_index).astype(logits.dtype)
    return (log(total) - _mp_allreduce(target, group)) * kept
