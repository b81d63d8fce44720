"""paddle.text.viterbi_decode and ViterbiDecoder: the best tag sequence of a linear-chain CRF.

    scores, paths = viterbi_decode(potentials, transitions, lengths, include_bos_eos_tag=False)

A path y of length L scores sum_t potentials[t, y_t] + sum_t transitions[y_{t-1}, y_t]; with
include_bos_eos_tag, transitions[-1, y_0] (from the start tag) and transitions[-2, y_{L-1}]
(to the stop tag, Paddle's convention) are added. The recursion runs over time, each step
vectorised over the batch and the tag pairs.
"""

from ..framework import arguments
from ..nn.layer.layers import Layer
from ..tensor import creation, manipulation, math, reduction, search

__all__ = ["ViterbiDecoder", "viterbi_decode"]

_FLOATS = ("float32", "float64")
_INTEGERS = ("int8", "int16", "int32", "int64", "uint8")


def _check_inputs(potentials, transitions, lengths):
    """(batch, seq_len, num_tags) after checking shapes, dtypes and the lengths' range."""
    where = "viterbi_decode"
    arguments.tensor(where, "potentials", potentials)
    arguments.tensor(where, "transition_params", transitions)
    arguments.tensor(where, "lengths", lengths)
    if len(potentials.shape) != 3:
        raise arguments.ArgumentError(
            f"{where}: potentials must be [batch_size, seq_len, num_tags], got shape "
            f"{list(potentials.shape)}")
    batch, seq_len, num_tags = (int(d) for d in potentials.shape)
    if list(transitions.shape) != [num_tags, num_tags]:
        raise arguments.ArgumentError(
            f"{where}: transition_params must be [num_tags, num_tags] = {[num_tags, num_tags]} "
            f"for potentials of shape {[batch, seq_len, num_tags]}, got "
            f"{list(transitions.shape)}")
    if list(lengths.shape) != [batch]:
        raise arguments.ArgumentError(
            f"{where}: lengths must be [batch_size] = [{batch}], got shape {list(lengths.shape)}")
    arguments.dtype_in(where, "potentials", potentials, _FLOATS)
    if arguments.dtype_name_of(transitions) != arguments.dtype_name_of(potentials):
        raise arguments.ArgumentTypeError(
            f"{where}: transition_params must have the dtype of potentials "
            f"({arguments.dtype_name_of(potentials)}), got {arguments.dtype_name_of(transitions)}")
    arguments.dtype_in(where, "lengths", lengths, _INTEGERS)
    if batch and seq_len:
        low, high = int(lengths.min().item()), int(lengths.max().item())
        if low < 1 or high > seq_len:
            raise arguments.ArgumentError(
                f"{where}: lengths must be in [1, seq_len = {seq_len}], got values in "
                f"[{low}, {high}]")
    return batch, seq_len, num_tags


def _step_mask(lengths, condition, dtype):
    """[batch, 1] of 1 where condition(lengths) holds, else 0, in ``dtype``."""
    return manipulation.unsqueeze(math.cast(condition(lengths), dtype), 1)


def viterbi_decode(potentials, transition_params, lengths, include_bos_eos_tag=True, name=None):
    """(scores [batch], paths [batch, max(lengths)] int64): the highest scoring tag sequence of
    each row of ``potentials`` [batch, seq_len, num_tags]; path entries past a row's length
    are 0."""
    batch, seq_len, num_tags = _check_inputs(potentials, transition_params, lengths)
    include_bos_eos_tag = arguments.flag("viterbi_decode", "include_bos_eos_tag",
                                         include_bos_eos_tag)
    if batch == 0 or seq_len == 0:
        return (creation.zeros([batch], potentials.dtype),
                creation.zeros([batch, 0], "int64"))
    dtype = potentials.dtype
    lengths = math.cast(lengths, "int64")
    steps = int(lengths.max().item())
    trans = manipulation.unsqueeze(transition_params, 0)  # [1, from, to]
    alpha = potentials[:, 0]
    if include_bos_eos_tag:
        stop = manipulation.unsqueeze(transition_params[num_tags - 2], 0)
        alpha = alpha + manipulation.unsqueeze(transition_params[num_tags - 1], 0)
        alpha = alpha + _step_mask(lengths, lambda n: n == 1, dtype) * stop
    history = []  # history[t - 1][b, j]: the best tag at t - 1 before tag j at t
    for t in range(1, steps):
        candidates = manipulation.unsqueeze(alpha, 2) + trans  # [batch, from, to]
        history.append(search.argmax(candidates, axis=1))
        advanced = reduction.max(candidates, axis=1) + potentials[:, t]
        active = _step_mask(lengths, lambda n, t=t: n > t, dtype)
        alpha = active * advanced + (1 - active) * alpha
        if include_bos_eos_tag:
            alpha = alpha + _step_mask(lengths, lambda n, t=t: n == t + 1, dtype) * stop
    scores = reduction.max(alpha, axis=1)
    last = search.argmax(alpha, axis=1)  # [batch]
    tags = last
    path = [None] * steps
    zero = creation.zeros([batch], "int64")
    for t in range(steps - 1, -1, -1):
        if t < steps - 1:
            before = manipulation.take_along_axis(history[t], manipulation.unsqueeze(tags, 1), 1)
            tags = manipulation.squeeze(before, 1)
        tags = search.where(lengths - 1 == t, last, tags)
        path[t] = search.where(lengths > t, tags, zero)
    return scores, manipulation.stack(path, axis=1)


class ViterbiDecoder(Layer):
    """A Layer holding ``transitions`` [num_tags, num_tags]; forward(potentials, lengths)
    returns viterbi_decode's (scores, paths)."""

    def __init__(self, transitions, include_bos_eos_tag=True, name=None):
        super().__init__()
        arguments.tensor("ViterbiDecoder", "transitions", transitions)
        if len(transitions.shape) != 2 or transitions.shape[0] != transitions.shape[1]:
            raise arguments.ArgumentError(
                f"ViterbiDecoder: transitions must be [num_tags, num_tags], got shape "
                f"{list(transitions.shape)}")
        self.transitions = transitions
        self.include_bos_eos_tag = arguments.flag("ViterbiDecoder", "include_bos_eos_tag",
                                                  include_bos_eos_tag)
        self.name = name

    def forward(self, potentials, lengths):
        return viterbi_decode(potentials, self.transitions, lengths, self.include_bos_eos_tag,
                              self.name)
