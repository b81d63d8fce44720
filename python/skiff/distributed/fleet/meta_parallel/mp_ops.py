"""The communication of tensor (model) parallelism in eager mode, each a PyLayer with its
gradient (Paddle's fleet.layers.mpu.mp_ops), over the model-parallel group:

    _c_identity(x)     forward x,                        backward: all-reduce (sum)
    _mp_allreduce(x)   forward all-reduce (sum),         backward: identity
    _c_split(x)        forward this rank's slice of the last axis, backward: all-gather
    _c_concat(x)       forward all-gather on the last axis,   backward: this rank's slice
    _c_softmax_with_cross_entropy(logits, label)   cross entropy of class-split logits

``group`` defaults to the model-parallel group of fleet's hybrid layout; in a group of
one rank the first four return their input.
"""
from ... import collective
from ... import fleet
from ....autograd import PyLayer
from ....framework.dtype import int32, int64
from ....tensor import amax, arange, concat, exp, log, logical_and, take_along_axis, where
from ....tensor import zeros_like

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


def _all_reduce_sum(x, group):
    out = x.clone()
    collective.all_reduce(out, collective.ReduceOp.SUM, group)
    return out


def _gather_last_axis(x, group):
    parts = []
    collective.all_gather(parts, x.contiguous(), group)
    return concat(parts, axis=-1)


def _slice_last_axis(x, group, what):
    width = x.shape[-1]
    if width % group.nranks:
        raise ValueError(f"{what}: the last dim {width} is not divisible by the model-parallel "
                         f"degree {group.nranks}")
    part = width // group.nranks
    return x[..., group.rank * part:(group.rank + 1) * part].contiguous()


class _Identity(PyLayer):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return _all_reduce_sum(grad, ctx.group)


class _AllReduce(PyLayer):
    @staticmethod
    def forward(ctx, x, group):
        return _all_reduce_sum(x, group)

    @staticmethod
    def backward(ctx, grad):
        return grad


class _Split(PyLayer):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _slice_last_axis(x, group, "_c_split")

    @staticmethod
    def backward(ctx, grad):
        return _gather_last_axis(grad, ctx.group)


class _Concat(PyLayer):
    @staticmethod
    def forward(ctx, x, group):
        ctx.group = group
        return _gather_last_axis(x, group)

    @staticmethod
    def backward(ctx, grad):
        return _slice_last_axis(grad, ctx.group, "_c_concat (backward)")


def _c_identity(tensor, group=None):
    """The input, whose gradient is summed over the model-parallel ranks (where a
    replicated activation enters a column-split layer)."""
    group = model_parallel_group(group, "_c_identity")
    return tensor if group.nranks == 1 else _Identity.apply(tensor, group)


def _mp_allreduce(tensor, group=None):
    """The sum of ``tensor`` over the model-parallel ranks; its gradient passes through
    unchanged (where the partial outputs of a row-split layer meet)."""
    group = model_parallel_group(group, "_mp_allreduce")
    return tensor if group.nranks == 1 else _AllReduce.apply(tensor, group)


def _c_split(tensor, group=None):
    """This rank's equal slice of the last axis; the gradient is gathered back whole."""
    group = model_parallel_group(group, "_c_split")
    return tensor if group.nranks == 1 else _Split.apply(tensor, group)


def _c_concat(tensor, group=None):
    """Every rank's ``tensor`` joined along the last axis in rank order; the gradient is
    this rank's slice."""
    group = model_parallel_group(group, "_c_concat")
    return tensor if group.nranks == 1 else _Concat.apply(tensor, group)


class _SoftmaxCrossEntropy(PyLayer):
    """Loss = log(sum of exp over all classes) - the target's logit, each rank holding
    the classes [rank * C, (rank + 1) * C) of its C; the maximum, the sum of exponentials
    and the target's logit are reduced over the group, so the loss is that of the whole
    logits, computed stably. Gradient: softmax - one_hot(label), on this rank's slice."""

    @staticmethod
    def forward(ctx, logits, label, group, ignore_index):
        width = logits.shape[-1]
        start = group.rank * width
        top = amax(logits, axis=-1, keepdim=True)
        collective.all_reduce(top, collective.ReduceOp.MAX, group)
        shifted = logits - top
        exps = exp(shifted)
        total = _all_reduce_sum(exps.sum(axis=-1, keepdim=True), group)
        inside = logical_and(label >= start, label < start + width)
        local = where(inside, label - start, zeros_like(label))
        target = take_along_axis(shifted, local, axis=-1) * inside.astype(logits.dtype)
        kept = (label != ignore_index).astype(logits.dtype)
        loss = (log(total) - _all_reduce_sum(target, group)) * kept
        hit = logical_and(arange(width, dtype=label.dtype) == local, inside)
        ctx.save_for_backward(exps / total, hit, kept)
        return loss

    @staticmethod
    def backward(ctx, grad):
        softmax, hit, kept = ctx.saved_tensor()
        return (softmax - hit.astype(softmax.dtype)) * (kept * grad), None  # none for label


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
    return _SoftmaxCrossEntropy.apply(logits, label, group, int(ignore_index))
