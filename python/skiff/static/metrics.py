"""Metrics as program variables (paddle.static.accuracy, paddle.static.auc): auc keeps
its positive / negative counts per score bucket in persistable variables that every
run of the program adds the batch to."""
from .. import _C
from .. import _C_ops
from ..framework.mode import mode
from ..metric.functional import accuracy as _accuracy
from ..tensor.manipulation import concat, slice
from ..tensor.math import cast, multiply, scale, subtract
from ..tensor.scalars import constant_like
from ..framework.building import create_global_var

__all__ = ["accuracy", "auc"]


def accuracy(input, label, k=1, correct=None, total=None):
    """Top-k accuracy of the batch (a float32 variable); ``correct`` / ``total`` (int32
    variables), when given, receive the counts."""
    return _accuracy(input, label, k, correct, total)


def _auc_from(pos, neg):
    """ROC AUC from per-bucket counts (float64 [B], bucket order = rising score): the
    trapezoids of the curve walked from the highest bucket down."""
    above_pos = _C_ops.cumsum(pos, axis=0, reverse=True)
    above_neg = _C_ops.cumsum(neg, axis=0, reverse=True)
    # each bucket's trapezoid: neg[i] * (pos above and at i + pos strictly above) / 2
    area = _C_ops.reduce_sum(multiply(neg, subtract(above_pos, scale(pos, 0.5))), dim=[],
                             keep_dim=False, reduce_all=True)
    tot = multiply(slice(above_pos, [0], [0], [1]), slice(above_neg, [0], [0], [1]))
    tot = _C_ops.reshape(tot, shape=[])
    has_both = _C_ops.greater_than(tot, constant_like(tot, 0.0))
    safe = _C_ops.where(has_both, tot, constant_like(tot, 1.0))
    return _C_ops.where(has_both, _C_ops.elementwise_div(area, safe), constant_like(tot, 0.0))


def _accumulate(var, value):
    _C_ops.elementwise_add(var, value, out=[var])
    return var


def auc(input, label, curve="ROC", num_thresholds=4095, topk=1, slide_steps=1,
        ins_tag_weight=None):
    """ROC AUC of the positive-class scores input[:, 1] against 0/1 labels, in static
    programs: returns (auc over every run so far, auc over the last ``slide_steps``
    batches (0: every run), [batch_stat_pos, batch_stat_neg, stat_pos, stat_neg])."""
    if not mode.static:
        raise _C.Error("static.auc builds program variables: call it after "
                       "skiff.enable_static() (eager code uses skiff.metric.Auc)")
    if curve != "ROC":
        raise ValueError(f"auc: curve must be 'ROC', got {curve!r}")
    if int(num_thresholds) < 1:
        raise ValueError(f"auc: num_thresholds must be positive, got {num_thresholds}")
    if int(slide_steps) < 0:
        raise ValueError(f"auc: slide_steps must be >= 0, got {slide_steps}")
    if ins_tag_weight is not None:
        raise _C.Error("auc: ins_tag_weight is not supported")
    if len(input.shape) != 2 or int(input.shape[1]) != 2:
        raise ValueError(f"auc: input must be [N, 2] (negative and positive scores), got "
                         f"shape {list(input.shape)}")
    buckets, steps = int(num_thresholds) + 1, int(slide_steps)
    score = _C_ops.reshape(slice(cast(input, "float64"), [1], [1], [2]), shape=[-1])
    index = cast(_C_ops.floor(scale(score, float(num_thresholds))), "int64")
    hot = _C_ops.one_hot(index, depth=buckets, dtype="float64", allow_out_of_range=True)
    positive = _C_ops.reshape(cast(label, "float64"), shape=[-1, 1])
    batch_pos = _C_ops.reduce_sum(multiply(hot, positive), dim=[0], keep_dim=False,
                                  reduce_all=False)
    batch_neg = _C_ops.reduce_sum(multiply(hot, scale(positive, -1.0, 1.0)), dim=[0],
                                  keep_dim=False, reduce_all=False)
    stat_pos = create_global_var([buckets], 0, "float64", persistable=True)
    stat_neg = create_global_var([buckets], 0, "float64", persistable=True)
    _accumulate(stat_pos, batch_pos)
    _accumulate(stat_neg, batch_neg)
    if steps == 0:
        window_pos, window_neg = stat_pos, stat_neg
    else:
        window_pos = create_global_var([steps, buckets], 0, "float64", persistable=True)
        window_neg = create_global_var([steps, buckets], 0, "float64", persistable=True)
        for window, batch in ((window_pos, batch_pos), (window_neg, batch_neg)):
            recent = concat([slice(window, [0], [1], [steps]),
                               _C_ops.unsqueeze(batch, axes=[0])], 0)
            _C_ops.assign(recent, out=[window])
    batch_auc = _auc_from(
        _C_ops.reduce_sum(window_pos, dim=[0], keep_dim=False, reduce_all=False)
        if steps
        else window_pos,
        _C_ops.reduce_sum(window_neg, dim=[0], keep_dim=False, reduce_all=False)
        if steps
        else window_neg,
    )
    return _auc_from(stat_pos, stat_neg), batch_auc, [window_pos, window_neg, stat_pos,
                                                       stat_neg]
