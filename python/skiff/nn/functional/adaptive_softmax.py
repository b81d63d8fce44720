"""Adaptive log-softmax (paddle.nn.functional.adaptive_log_softmax_with_loss): a head
softmax over the frequent classes and one entry per cluster of rare classes, each cluster
with its own low-rank softmax. Every row's cluster terms are computed and masked, so the
computation is fixed-shape and works in static programs."""
from ... import _C_ops
from ...framework.core import apply
from ...framework.mode import mode
from ...framework.arguments import dtype_name_of
from ...tensor.linalg import matmul
from ...tensor.math import add, cast, multiply, scale

__all__ = ["adaptive_log_softmax_with_loss"]


def _compare(op, label, value):
    return apply(op, label, _C_ops.fill_any_like(label, value=float(value), dtype=""))


def _pick(log_probs, index, depth, dtype):
    """log_probs[n, index[n]] for every row n."""
    hot = _C_ops.one_hot(index, depth=int(depth), dtype=dtype)
    return _C_ops.reduce_sum(multiply(log_probs, hot), dim=[1], keep_dim=False, reduce_all=False)


def _check(input, label, cutoffs):
    rank = len(label.shape)
    if rank == 1:
        if len(input.shape) != 2:
            raise ValueError(f"adaptive_log_softmax_with_loss: a 1-D label needs a 2-D input, "
                             f"got input shape {list(input.shape)}")
        if label.shape[0] != input.shape[0] and min(label.shape[0], input.shape[0]) >= 0:
            raise ValueError("adaptive_log_softmax_with_loss: input and label must have the "
                             "same batch size")
    elif rank == 0:
        if len(input.shape) != 1:
            raise ValueError(f"adaptive_log_softmax_with_loss: a 0-D label needs a 1-D input, "
                             f"got input shape {list(input.shape)}")
    else:
        raise ValueError("adaptive_log_softmax_with_loss: label must be 0-D or 1-D")
    if not mode.static:
        values = label.numpy()
        if values.size and (values.min() < 0 or values.max() >= cutoffs[-1]):
            raise ValueError(f"adaptive_log_softmax_with_loss: label values must be in "
                             f"[0, {cutoffs[-1] - 1}], got [{values.min()}, {values.max()}]")


def adaptive_log_softmax_with_loss(input, label, head_weight, tail_weights, cutoffs,
                                   head_bias=None, name=None):
    """Returns (output, loss): output[n] the log-probability of label[n] ([N], or a scalar
    for a 0-D label), loss = mean(-output). cutoffs ends with the number of classes;
    tail_weights[i] = [in_features x hidden, hidden x cluster size] for cluster i."""
    cutoffs = [int(c) for c in cutoffs]
    _check(input, label, cutoffs)
    batched = len(label.shape) == 1
    if not batched:
        input, label = (
            _C_ops.unsqueeze(input, axes=[0]),
            _C_ops.reshape(label, shape=[1]),
        )
    dtype = dtype_name_of(input)
    shortlist = cutoffs[0]
    head = matmul(input, head_weight)
    if head_bias is not None:
        head = add(head, head_bias)
    head_log_probs = _C_ops.log_softmax(head, axis=1)
    head_target, output = label, None
    for i, (low, high) in enumerate(zip(cutoffs, cutoffs[1:])):
        inside = _C_ops.logical_and(_compare("greater_equal", label, low),
                                    _compare("less_than", label, high))
        cluster_id = _C_ops.fill_any_like(label, value=float(shortlist + i), dtype="")
        head_target = _C_ops.where(inside, cluster_id, head_target)
        first, second = tail_weights[i]
        log_probs = _C_ops.log_softmax(matmul(matmul(input, first), second), axis=1)
        local = _C_ops.clip(scale(label, 1.0, -float(low)), min=0.0, max=float(high - low - 1))
        term = multiply(_pick(log_probs, local, high - low, dtype), cast(inside, dtype))
        output = term if output is None else add(output, term)
    head_term = _pick(head_log_probs, head_target, int(head_weight.shape[1]), dtype)
    output = head_term if output is None else add(output, head_term)
    loss = _C_ops.reduce_mean(scale(output, -1.0), dim=[], keep_dim=False, reduce_all=True)
    if not batched:
        output = _C_ops.reshape(output, shape=[])
    return output, loss
