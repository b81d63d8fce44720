"""Loss functions (paddle.nn.functional): cross_entropy, nll_loss, mse_loss, l1_loss,
binary_cross_entropy(_with_logits), softmax_with_cross_entropy, smooth_l1_loss."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...framework.core import eager_op
from ...framework.tensor_params import FLOATING, accepts
from ...framework.arguments import dtype_name_of
from ...tensor.manipulation import squeeze
from ...tensor.math import add, multiply, scale, subtract
from ...tensor.scalars import constant_like
from .activation import log_softmax, relu, softplus

__all__ = ["cross_entropy", "softmax_with_cross_entropy", "nll_loss", "mse_loss", "l1_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "smooth_l1_loss",
           "kl_div", "square_error_cost", "margin_ranking_loss", "hinge_embedding_loss",
           "log_loss"]


def _check_reduction(reduction, where):
    if reduction not in ("none", "sum", "mean"):
        raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got "
                         f"{reduction!r}")


def reduce_loss(loss, reduction, where):
    """The losses of ``loss`` as ``reduction`` asks (of the loss function ``where``):
    'none' keeps them, 'sum' adds them up, 'mean' averages them."""
    if reduction == "none":
        return loss
    if reduction == "sum":
        return _C_ops.reduce_sum(loss, dim=[], keep_dim=False, reduce_all=True)
    if reduction == "mean":
        return _C_ops.reduce_mean(loss, dim=[], keep_dim=False, reduce_all=True)
    raise ValueError(f"{where}: reduction must be 'none', 'sum' or 'mean', got {reduction!r}")


_log_softmax_last = eager_op("log_softmax", {"axis": -1})
_nll_ops = {}


def _nll_2d(logp, label, weight, ignore_index, reduction):
    """nll_loss on [M, C] log-probabilities and [M] labels (a cached op: in static mode or
    under a hook its call goes through the dispatch point like any other)."""
    op = _nll_ops.get((reduction, ignore_index))
    if op is None:
        attrs = {"reduction": reduction, "ignore_index": int(ignore_index)}
        op = _nll_ops[(reduction, ignore_index)] = eager_op("nll_loss", attrs, [1, 1])
    return op(logp, label, weight)[0]


def _softmax_cross_entropy_2d(scores, label, ignore_index, reduction):
    """Summed or mean cross entropy of [N, C] scores and hard labels [N] or [N, 1] through
    the fused softmax_with_cross_entropy op: its backward is one pass, softmax less the
    one-hot label, where log_softmax + nll_loss take a pass filling the one-hot gradient and
    a pass with exp. 'mean' divides by the number of labels not ignored."""
    column = label if len(label.shape) == 2 else _C_ops.unsqueeze(label, axes=[1])
    _, loss = _C_ops.softmax_with_cross_entropy(scores, column, soft_label=False, axis=-1,
                                                ignore_index=int(ignore_index))
    total = _C_ops.reduce_sum(loss, dim=[], keep_dim=False, reduce_all=True)
    if reduction == "sum":
        return total
    counted = _C_ops.cast(column != ignore_index, out_dtype=dtype_name_of(scores))
    return total / _C_ops.reduce_sum(counted, dim=[], keep_dim=False, reduce_all=True)


def _class_axis_last(x, axis):
    rank = len(x.shape)
    axis = axis + rank if axis < 0 else axis
    if axis == rank - 1:
        return x
    perm = [i for i in range(rank) if i != axis] + [axis]
    return _C_ops.transpose(x, axis=perm)


def _squeeze_label(label, label_shape, in_shape):
    """A label with as many dims as the input and a size-1 dim after the batch one
    ([N, 1] for input [N, C]; [N, 1, d...] or [N, d..., 1]), as [N, d...]; any other
    label is returned as it is (the caller names the mismatch)."""
    want = [in_shape[0]] + in_shape[2:]
    for axis in (1, len(label_shape) - 1):
        if label_shape[axis] == 1 and label_shape[:axis] + label_shape[axis + 1:] == want:
            return squeeze(label, axis), want
    return label, label_shape


def nll_loss(input, label, weight=None, ignore_index=-100, reduction="mean", name=None):
    """-weight[label] * input[label] per sample from log-probabilities ``input`` [N, C] or
    [N, C, d...]; 'mean' divides by the summed weights of the labels not ignored."""
    _check_reduction(reduction, "nll_loss")
    in_shape, label_shape = list(input.shape), list(label.shape)
    if len(in_shape) >= 2 and len(label_shape) == len(in_shape):
        label, label_shape = _squeeze_label(label, label_shape, in_shape)
    if len(in_shape) < 2 or len(label_shape) != len(in_shape) - 1:
        raise _C.Error(f"nll_loss: expected input [N, C, ...] and label [N, ...] with one dim "
                       f"fewer (or a size-1 dim more), got input {in_shape} and label "
                       f"{list(label.shape)}")
    if len(in_shape) == 2:
        return _nll_2d(input, label, weight, ignore_index, reduction)
    logp = _C_ops.reshape(_class_axis_last(input, 1), shape=[-1, int(in_shape[1])])
    out = _nll_2d(
        logp, _C_ops.reshape(label, shape=[-1]), weight, ignore_index, reduction
    )
    return (
        _C_ops.reshape(out, shape=[0 if s < 0 else s for s in label_shape])
        if reduction == "none"
        else out
    )


def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """The fused op: per-sample loss (the class axis kept with size 1), and the softmax."""
    axis = arguments.axis("softmax_with_cross_entropy", axis, len(logits.shape), scalar=True)
    softmax, loss = _C_ops.softmax_with_cross_entropy(logits, label, soft_label=bool(soft_label),
                                                      axis=axis, ignore_index=int(ignore_index))
    return (loss, softmax) if return_softmax else loss


@accepts(input=FLOATING)
def cross_entropy(input, label, weight=None, ignore_index=-100, reduction="mean",
                  soft_label=False, axis=-1, use_softmax=True, label_smoothing=0.0, name=None):
    """Cross-entropy of class scores ``input`` (softmax applied unless use_softmax is
    False) against hard labels (int, one dim fewer or size 1 at ``axis``) or soft labels
    (distributions). Hard labels with 'mean' average over the samples not ignored,
    weighted by ``weight[label]`` when given. Hard labels given as floats are read as
    class indices, as Paddle reads them; with label_smoothing, a label of the input's
    shape is read as a distribution (one-hot) instead."""
    in_shape = input.shape
    rank = len(in_shape)
    if (label_smoothing and label_smoothing > 0.0 and not soft_label
            and list(label.shape) == list(in_shape) and in_shape[axis] != 1):
        label = _C_ops.cast(label, out_dtype=dtype_name_of(input))
        soft_label = True
    if not soft_label and dtype_name_of(label) in ("float32", "float64", "bfloat16"):
        label = _C_ops.cast(label, out_dtype="int64")
    if (rank == 2 and not soft_label and use_softmax and not label_smoothing
            and axis in (-1, 1) and reduction in ("mean", "sum")):
        # the common case: [N, C] scores, [N] or [N, 1] labels
        if (weight is None and dtype_name_of(input) in ("float32", "float64")
                and (len(label.shape) == 1 or (len(label.shape) == 2 and label.shape[1] == 1))):
            return _softmax_cross_entropy_2d(input, label, ignore_index, reduction)
        if len(label.shape) == 1:
            return _nll_2d(_log_softmax_last(input), label, weight, ignore_index, reduction)
    _check_reduction(reduction, "cross_entropy")
    axis = arguments.axis("cross_entropy", axis, rank)
    num_classes = int(in_shape[axis])
    if label_smoothing and label_smoothing > 0.0:
        if not soft_label:
            label = _one_hot_along(label, num_classes, rank, axis, dtype_name_of(input))
        label = scale(label, 1.0 - label_smoothing, label_smoothing / num_classes)
        soft_label = True
    if soft_label:
        return _soft_cross_entropy(input, label, weight, reduction, axis, use_softmax)
    label_shape = list(label.shape)
    if len(label_shape) == rank:
        if label_shape[axis] != 1:
            raise _C.Error(f"cross_entropy: hard labels {label_shape} must have size 1 at the "
                           f"class axis {axis} of input {in_shape} (or one dim fewer)")
    elif len(label_shape) != rank - 1:
        raise _C.Error(f"cross_entropy: input {in_shape} and label {label_shape} do not match: "
                       f"hard labels have one dim fewer than the input (or size 1 at axis)")
    scores = _class_axis_last(input, axis)
    logp = log_softmax(scores, -1) if use_softmax else _C_ops.log(scores)
    if rank != 2:
        logp = _C_ops.reshape(logp, shape=[-1, num_classes])
    flat_label = label if len(label_shape) == 1 else _C_ops.reshape(label, shape=[-1])
    out = _nll_2d(logp, flat_label, weight, ignore_index, reduction)
    if reduction == "none":
        out = (
            _C_ops.reshape(out, shape=[0 if s < 0 else s for s in label_shape])
            if len(label_shape) > 1
            else out
        )
    return out


def _one_hot_along(label, num_classes, rank, axis, dtype):
    if len(label.shape) == rank:
        label = squeeze(label, [axis])
    hot = _C_ops.one_hot(label, depth=num_classes, dtype=dtype)
    if axis != rank - 1:
        perm = list(range(rank - 1))
        perm.insert(axis, rank - 1)
        hot = _C_ops.transpose(hot, axis=perm)
    return hot


def _soft_cross_entropy(input, label, weight, reduction, axis, use_softmax):
    if list(label.shape) != list(input.shape):
        raise _C.Error(f"cross_entropy(soft_label=True): label {list(label.shape)} must have "
                       f"the input's shape {list(input.shape)}")
    if use_softmax:
        loss = softmax_with_cross_entropy(input, label, soft_label=True, axis=axis)
    else:
        loss = scale(
            _C_ops.reduce_sum(multiply(label, _C_ops.log(input)), dim=[axis], keep_dim=True,
                              reduce_all=False),
            -1.0,
        )
    if weight is None:
        return reduce_loss(loss, reduction, "cross_entropy")
    rank = len(input.shape)
    w_shape = [1] * rank
    w_shape[axis] = -1
    sample_w = _C_ops.reduce_sum(multiply(label, _C_ops.reshape(weight, shape=w_shape)), dim=[axis],
                                 keep_dim=True, reduce_all=False)
    loss = multiply(loss, sample_w)
    if reduction == "mean":
        total = _C_ops.reduce_sum(loss, dim=[], keep_dim=False, reduce_all=True)
        weights = _C_ops.reduce_sum(sample_w, dim=[], keep_dim=False, reduce_all=True)
        return _C_ops.elementwise_div(total, weights)
    return reduce_loss(loss, reduction, "cross_entropy")


def _check_same_shape(input, label, where):
    a, b = list(input.shape), list(label.shape)
    if len(a) != len(b) or any(x >= 0 and y >= 0 and x != y for x, y in zip(a, b)):
        raise _C.Error(f"{where}: input {a} and label {b} must have the same shape")


def mse_loss(input, label, reduction="mean", name=None):
    """(input - label)^2, reduced."""
    _check_reduction(reduction, "mse_loss")
    _check_same_shape(input, label, "mse_loss")
    return reduce_loss(_C_ops.mse_loss(input, label), reduction, "mse_loss")


@accepts(input=FLOATING)
def l1_loss(input, label, reduction="mean", name=None):
    """|input - label|, reduced."""
    _check_reduction(reduction, "l1_loss")
    _check_same_shape(input, label, "l1_loss")
    return reduce_loss(_C_ops.abs(subtract(input, label)), reduction, "l1_loss")


@accepts(input=FLOATING)
def smooth_l1_loss(input, label, reduction="mean", delta=1.0, is_huber=True, name=None):
    """Huber loss (Paddle's default): 0.5 d^2 where |d| < delta, else delta * (|d| - 0.5
    delta), d = input - label; with is_huber=False the smooth L1 loss, that divided by delta
    (torch's smooth_l1_loss with beta = delta)."""
    _check_reduction(reduction, "smooth_l1_loss")
    _check_same_shape(input, label, "smooth_l1_loss")
    if float(delta) <= 0.0:
        raise ValueError(f"smooth_l1_loss: delta must be positive, got {delta}")
    d = _C_ops.abs(subtract(input, label))
    small = _C_ops.clip(d, max=float(delta))  # min(|d|, delta)
    # 0.5 small^2 + delta * (|d| - small): equals both branches.
    loss = add(scale(_C_ops.square(small), 0.5), scale(subtract(d, small), float(delta)))
    if not is_huber:
        loss = scale(loss, 1.0 / float(delta))
    return reduce_loss(loss, reduction, "smooth_l1_loss")


@accepts(input=FLOATING)
def binary_cross_entropy(input, label, weight=None, reduction="mean", name=None):
    """-(label log(input) + (1 - label) log(1 - input)) for probabilities ``input``; each
    log is clamped at -100 so that 0 and 1 give finite losses."""
    _check_reduction(reduction, "binary_cross_entropy")
    _check_same_shape(input, label, "binary_cross_entropy")
    clamp = {"min": -100.0}
    log_p = _C_ops.clip(_C_ops.log(input), **clamp)
    log_q = _C_ops.clip(_C_ops.log(scale(input, -1.0, 1.0)), **clamp)
    loss = scale(add(multiply(label, subtract(log_p, log_q)), log_q), -1.0)
    if weight is not None:
        loss = multiply(loss, weight)
    return reduce_loss(loss, reduction, "binary_cross_entropy")


@accepts(logit=FLOATING)
def binary_cross_entropy_with_logits(logit, label, weight=None, reduction="mean",
                                     pos_weight=None, name=None):
    """Binary cross-entropy of sigmoid(logit), computed stably from the logits;
    ``pos_weight`` weighs the positive term per class."""
    _check_reduction(reduction, "binary_cross_entropy_with_logits")
    _check_same_shape(logit, label, "binary_cross_entropy_with_logits")
    if pos_weight is None:
        loss = _C_ops.sigmoid_cross_entropy_with_logits(logit, label, ignore_index=-100,
                                                        normalize=False)
    else:
        # (1 - y) x + (1 + (p - 1) y) (log(1 + exp(-|x|)) + max(-x, 0))
        log_weight = scale(multiply(scale(pos_weight, 1.0, -1.0), label), 1.0, 1.0)
        stable = add(softplus(scale(_C_ops.abs(logit), -1.0)), relu(scale(logit, -1.0)))
        loss = add(multiply(scale(label, -1.0, 1.0), logit), multiply(log_weight, stable))
    if weight is not None:
        loss = multiply(loss, weight)
    return reduce_loss(loss, reduction, "binary_cross_entropy_with_logits")


@accepts(input=FLOATING)
def square_error_cost(input, label):
    """(input - label)^2 elementwise (Paddle's square_error_cost)."""
    _check_same_shape(input, label, "square_error_cost")
    return _C_ops.mse_loss(input, label)


@accepts(input=FLOATING)
def kl_div(input, label, reduction="mean", log_target=False, name=None):
    """KL divergence from log-probabilities ``input`` to ``label`` (probabilities, or
    log-probabilities with log_target): label * (log(label) - input), 0 where label is 0;
    'batchmean' divides the sum by the batch size."""
    if reduction not in ("none", "sum", "mean", "batchmean"):
        raise ValueError(f"kl_div: reduction must be 'none', 'sum', 'mean' or 'batchmean', got "
                         f"{reduction!r}")
    _check_same_shape(input, label, "kl_div")
    if log_target:
        loss = multiply(_C_ops.exp(label), subtract(label, input))
    else:
        positive = _C_ops.greater_than(label, constant_like(label, 0.0))
        safe = _C_ops.where(positive, label, constant_like(label, 1.0))  # log(1) = 0
        loss = multiply(label, subtract(_C_ops.log(safe), input))
    if reduction == "batchmean":
        batch = int(input.shape[0]) if len(input.shape) else 1
        return scale(
            _C_ops.reduce_sum(loss, dim=[], keep_dim=False, reduce_all=True),
            1.0 / batch,
        )
    return reduce_loss(loss, reduction, "kl_div")


@accepts(input=FLOATING)
def margin_ranking_loss(input, other, label, margin=0.0, reduction="mean", name=None):
    """max(0, -label * (input - other) + margin), reduced."""
    _check_reduction(reduction, "margin_ranking_loss")
    loss = relu(scale(multiply(label, subtract(input, other)), -1.0, float(margin)))
    return reduce_loss(loss, reduction, "margin_ranking_loss")


@accepts(input=FLOATING)
def hinge_embedding_loss(input, label, margin=1.0, reduction="mean", name=None):
    """input where label is 1, max(0, margin - input) where it is -1; reduced."""
    _check_reduction(reduction, "hinge_embedding_loss")
    positive = _C_ops.equal(label, constant_like(label, 1.0))
    loss = _C_ops.where(positive, input, relu(scale(input, -1.0, float(margin))))
    return reduce_loss(loss, reduction, "hinge_embedding_loss")


@accepts(input=FLOATING)
def log_loss(input, label, epsilon=1e-4, name=None):
    """-label log(input + epsilon) - (1 - label) log(1 - input + epsilon), elementwise."""
    log_p = _C_ops.log(scale(input, 1.0, float(epsilon)))
    log_q = _C_ops.log(scale(input, -1.0, 1.0 + float(epsilon)))
    return scale(add(multiply(label, subtract(log_p, log_q)), log_q), -1.0)
