"""Sequence losses summed over alignments (paddle.nn.functional.ctc_loss, rnnt_loss): the
forward (alpha) recursion of each in log space, one step of ops per time step, vectorised
over the batch and the label positions; gradients come from autograd through it."""
from ...framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of, is_tensor
from ...tensor import (arange, cast, clip, concat, cumsum, expand, full,
                       logcumsumexp, logsumexp, not_equal, reshape, stack, take_along_axis,
                       unsqueeze, where, zeros)
from .activation import log_softmax
from .loss import _check_reduction, reduce_loss

__all__ = ["ctc_loss", "rnnt_loss"]

# Log of an impossible path: finite, so no inf - inf or 0 * inf reaches the gradients.
_NEG = -1e30
_INFEASIBLE = -1e29


def _lengths(fn, name, t, batch):
    if not is_tensor(t):
        raise ArgumentTypeError(f"{fn}: {name} must be a Tensor, got {type(t).__name__}")
    if dtype_name_of(t) not in ("int32", "int64"):
        raise ArgumentTypeError(f"{fn}: {name} must be int32 or int64, got {dtype_name_of(t)}")
    t = reshape(cast(t, "int64"), [-1])
    if int(t.shape[0]) != batch:
        raise ArgumentError(f"{fn}: {name} must hold one length per sample ({batch}), got "
                            f"{t.shape[0]}")
    return t


def _check_floating(fn, name, x, rank):
    if dtype_name_of(x) not in ("float32", "float64"):
        raise ArgumentTypeError(f"{fn}: {name} must be float32 or float64, got "
                                f"{dtype_name_of(x)}")
    if len(x.shape) != rank:
        raise ArgumentError(f"{fn}: {name} must be {rank}-D, got shape {list(x.shape)}")


def _check_range(fn, name, t, low, high):
    if int(t.shape[0]) and (int(t.min()) < low or int(t.max()) > high):
        raise ArgumentError(f"{fn}: {name} must lie in [{low}, {high}], got "
                            f"{t.numpy().tolist()}")


def _shift(a, k):
    """a [B, S] moved k places right along S, _NEG filling the first k."""
    return concat([full([a.shape[0], k], _NEG, dtype_name_of(a)), a[:, :-k]], axis=1)


def ctc_loss(log_probs, labels, input_lengths, label_lengths, blank=0, reduction="mean",
             norm_by_times=False, zero_infinity=False):
    """CTC loss of unscaled scores log_probs [T, B, C] (log_softmax is applied, as
    Paddle's warpctc does) against labels [B, L]: [B] for 'none', else the sum, or the
    mean of the losses divided by their label lengths. norm_by_times divides each
    sample's gradient by its input length; zero_infinity zeroes impossible alignments."""
    fn = "ctc_loss"
    _check_reduction(reduction, fn)
    _check_floating(fn, "log_probs", log_probs, 3)
    steps, batch, classes = (int(d) for d in log_probs.shape)
    if len(labels.shape) != 2 or int(labels.shape[0]) != batch:
        raise ArgumentError(f"{fn}: labels must be [batch ({batch}), max_label_length], got "
                            f"shape {list(labels.shape)}")
    if dtype_name_of(labels) not in ("int32", "int64"):
        raise ArgumentTypeError(f"{fn}: labels must be int32 or int64, got "
                                f"{dtype_name_of(labels)}")
    if not 0 <= int(blank) < classes:
        raise ArgumentError(f"{fn}: blank must lie in [0, {classes}), got {blank}")
    in_len = _lengths(fn, "input_lengths", input_lengths, batch)
    lab_len = _lengths(fn, "label_lengths", label_lengths, batch)
    width = int(labels.shape[1])
    _check_range(fn, "input_lengths", in_len, 1, steps)
    _check_range(fn, "label_lengths", lab_len, 0, width)
    dtype = dtype_name_of(log_probs)
    # The extended labels [B, 2L + 1]: blank, l1, blank, l2, ..., blank (padding -> blank).
    inside = unsqueeze(arange(0, width, dtype="int64"), 0) < unsqueeze(lab_len, 1)
    lab = where(inside, cast(labels, "int64"), full([batch, width], int(blank), "int64"))
    _check_range(fn, "labels", reshape(lab, [-1]), 0, classes - 1)
    blanks = full([batch, width + 1], int(blank), "int64")
    ext = reshape(stack([blanks[:, :width], lab], axis=2), [batch, 2 * width])
    ext = concat([ext, blanks[:, :1]], axis=1)
    size = 2 * width + 1
    # s may come from s - 2 when it holds a label differing from the one two back.
    skip = not_equal(ext, concat([full([batch, 2], -1, "int64"), ext[:, :-2]], axis=1))
    skip = skip & not_equal(ext, full([batch, size], int(blank), "int64"))
    logp = log_softmax(log_probs, axis=-1)
    emit = take_along_axis(logp, expand(unsqueeze(ext, 0), [steps, batch, size]), axis=2)
    first = arange(0, size, dtype="int64") < 2
    alpha = where(unsqueeze(first, 0), emit[0], full([batch, size], _NEG, dtype))
    for t in range(1, steps):
        prev = stack([alpha, _shift(alpha, 1),
                      where(skip, _shift(alpha, 2), full([batch, size], _NEG, dtype))], axis=2)
        step = logsumexp(prev, axis=2) + emit[t]
        alpha = where(unsqueeze(in_len > t, 1), step, alpha)
    ends = stack([2 * lab_len, clip(2 * lab_len - 1, min=0)], axis=1)
    last = take_along_axis(alpha, ends, axis=1)
    last = where(stack([lab_len >= 0, lab_len > 0], axis=1), last,
                 full([batch, 2], _NEG, dtype))
    loss = -logsumexp(last, axis=1)
    loss = _finish_infeasible(loss, zero_infinity)
    if norm_by_times:
        loss = loss.detach() + (loss - loss.detach()) / cast(in_len, dtype)
    if reduction == "mean":
        loss = loss / cast(clip(lab_len, min=1), dtype)
    return reduce_loss(loss, reduction, fn)


def _finish_infeasible(loss, zero_infinity):
    """Losses of samples with no alignment: inf, or 0 (without gradient) if zero_infinity."""
    bad = loss.detach() > -_INFEASIBLE
    fill = 0.0 if zero_infinity else float("inf")
    return where(bad, full(loss.shape, fill, dtype_name_of(loss)), loss)


def rnnt_loss(input, label, input_lengths, label_lengths, blank=0, fastemit_lambda=0.001,
              reduction="mean", name=None):
    """RNN-T loss of log-probabilities input [B, T, U + 1, C] (used as given, as Paddle's
    warprnnt does) against label [B, U]: [B] for 'none', else their sum or mean.
    fastemit_lambda scales the gradient of the label emissions by 1 + lambda (FastEmit);
    the loss value does not change."""
    fn = "rnnt_loss"
    _check_reduction(reduction, fn)
    _check_floating(fn, "input", input, 4)
    batch, steps, width1, classes = (int(d) for d in input.shape)
    if len(label.shape) != 2 or int(label.shape[0]) != batch or \
            int(label.shape[1]) != width1 - 1:
        raise ArgumentError(f"{fn}: label must be [batch ({batch}), {width1 - 1}] for input "
                            f"{list(input.shape)}, got shape {list(label.shape)}")
    if dtype_name_of(label) not in ("int32", "int64"):
        raise ArgumentTypeError(f"{fn}: label must be int32 or int64, got "
                                f"{dtype_name_of(label)}")
    if not 0 <= int(blank) < classes:
        raise ArgumentError(f"{fn}: blank must lie in [0, {classes}), got {blank}")
    in_len = _lengths(fn, "input_lengths", input_lengths, batch)
    lab_len = _lengths(fn, "label_lengths", label_lengths, batch)
    _check_range(fn, "input_lengths", in_len, 1, steps)
    _check_range(fn, "label_lengths", lab_len, 0, width1 - 1)
    width = width1 - 1
    dtype = dtype_name_of(input)
    lab = cast(label, "int64")
    if width:
        inside = unsqueeze(arange(0, width, dtype="int64"), 0) < unsqueeze(lab_len, 1)
        lab = where(inside, lab, full([batch, width], int(blank), "int64"))
        _check_range(fn, "label", reshape(lab, [-1]), 0, classes - 1)
    blank_lp = input[:, :, :, int(blank)]                          # [B, T, U + 1]
    if width:
        index = expand(reshape(lab, [batch, 1, width, 1]), [batch, steps, width, 1])
        emit_lp = reshape(take_along_axis(input[:, :, :width], index, axis=3),
                          [batch, steps, width])                   # [B, T, U]
        if fastemit_lambda:
            lam = float(fastemit_lambda)
            emit_lp = emit_lp * (1.0 + lam) - emit_lp.detach() * lam
    # Along u, alpha[t, u] = logaddexp(alpha[t-1, u] + blank[t-1, u], alpha[t, u-1] +
    # emit[t, u-1]): with E[u] the sum of emit[t, :u], alpha[t] = E + logcumsumexp(A - E).
    start = where(arange(0, width1, dtype="int64") == 0, zeros([width1], dtype),
                  full([width1], _NEG, dtype))
    above = expand(unsqueeze(start, 0), [batch, width1])
    alphas = []
    for t in range(steps):
        if width:
            e = concat([zeros([batch, 1], dtype), cumsum(emit_lp[:, t], axis=1)], axis=1)
            alpha = e + logcumsumexp(above - e, axis=1)
        else:
            alpha = above
        alphas.append(alpha)
        above = alpha + blank_lp[:, t]
    table = stack(alphas, axis=1)                                  # [B, T, U + 1]
    rows = take_along_axis(table, reshape(in_len - 1, [batch, 1, 1]).expand(
        [batch, 1, width1]), axis=1)
    final = take_along_axis(reshape(rows, [batch, width1]), unsqueeze(lab_len, 1), axis=1)
    last_blank = take_along_axis(
        reshape(take_along_axis(blank_lp, reshape(in_len - 1, [batch, 1, 1]).expand(
            [batch, 1, width1]), axis=1), [batch, width1]), unsqueeze(lab_len, 1), axis=1)
    loss = -reshape(final + last_blank, [batch])
    return reduce_loss(loss, reduction, fn)
