"""Decoding with an RNN cell (Paddle's paddle.nn.decode): the Decoder interface,
BeamSearchDecoder (beam search over a cell's logits, [batch, beam] at each step) and
dynamic_decode, which steps a decoder until every sequence has finished (or
max_step_num) and stacks the step outputs.

    decoder = BeamSearchDecoder(cell, start_token=0, end_token=1, beam_size=4,
                                embedding_fn=embedding, output_fn=linear)
    ids, states = dynamic_decode(decoder, inits=cell.get_initial_states(enc), max_step_num=10)
    # ids: [batch, steps, beam], each beam traced back through its parents"""
import collections

from ..framework.arguments import ArgumentError, ArgumentTypeError
from ..framework.nest import flatten, pack
from ..tensor import (all as reduce_all, cast, equal, expand, full, logical_not, logical_or,
                      reshape, stack, take_along_axis, tile, to_tensor, topk, transpose,
                      unsqueeze, where, zeros)
from .functional.activation import log_softmax
from .functional.extension import gather_tree

__all__ = ["Decoder", "BeamSearchDecoder", "dynamic_decode"]


def map_structure(fn, *structures):
    """fn over the leaves of one or more structures of the same shape, as that shape."""
    specs, leaves = [], []
    for s in structures:
        found = []
        specs.append(flatten(s, found))
        leaves.append(found)
    return pack(specs[0], [fn(*items) for items in zip(*leaves)])


class Decoder:
    """A decoder dynamic_decode can step: initialize(inits) -> (inputs, states,
    finished); step(time, inputs, states, **kwargs) -> (outputs, states, inputs,
    finished); finalize(outputs, states, sequence_lengths) -> (outputs, states)."""

    def initialize(self, inits):
        raise NotImplementedError

    def step(self, time, inputs, states, **kwargs):
        raise NotImplementedError

    def finalize(self, outputs, final_states, sequence_lengths):
        raise NotImplementedError

    @property
    def tracks_own_finished(self):
        """True when step keeps finished sequences as they are itself."""
        return False


class BeamSearchDecoder(Decoder):
    """Beam search over cell(inputs, states) -> (outputs, states): each step keeps the
    beam_size best continuations (by summed log-softmax of output_fn(outputs)) of every
    batch entry; finished beams only extend by end_token at no cost."""

    OutputWrapper = collections.namedtuple("OutputWrapper",
                                           ("scores", "predicted_ids", "parent_ids"))
    StateWrapper = collections.namedtuple("StateWrapper",
                                          ("cell_states", "log_probs", "finished", "lengths"))

    def __init__(self, cell, start_token, end_token, beam_size, embedding_fn=None,
                 output_fn=None):
        if not callable(cell):
            raise ArgumentTypeError(f"BeamSearchDecoder: cell must be an RNN cell, got "
                                    f"{type(cell).__name__}")
        if isinstance(beam_size, bool) or not isinstance(beam_size, int) or beam_size < 1:
            raise ArgumentError(f"BeamSearchDecoder: beam_size must be a positive int, got "
                                f"{beam_size!r}")
        self.cell, self.embedding_fn, self.output_fn = cell, embedding_fn, output_fn
        self.start_token, self.end_token = int(start_token), int(end_token)
        self.beam_size = beam_size

    @staticmethod
    def tile_beam_merge_with_batch(x, beam_size):
        """x [batch, ...] with each entry repeated beam_size times: [batch * beam, ...]."""
        shape = [int(d) for d in x.shape]
        tiled = tile(unsqueeze(x, 1), [1, beam_size] + [1] * (len(shape) - 1))
        return reshape(tiled, [shape[0] * beam_size] + shape[1:])

    def _split_batch_beams(self, x):
        return reshape(x, [-1, self.beam_size] + [int(d) for d in x.shape[1:]])

    def _merge_batch_beams(self, x):
        return reshape(x, [-1] + [int(d) for d in x.shape[2:]])

    def _expand_to_beam_size(self, x):
        return tile(unsqueeze(x, 1), [1, self.beam_size] + [1] * (len(x.shape) - 1))

    def _gather(self, x, indices, batch_size=None):
        """x [batch, beam, ...] at the beams ``indices`` [batch, k] of each entry."""
        index = indices
        rest = [int(d) for d in x.shape[2:]]
        if rest:
            index = expand(reshape(indices, list(indices.shape) + [1] * len(rest)),
                           list(indices.shape) + rest)
        return take_along_axis(x, index, axis=1)

    def _mask_probs(self, probs, finished):
        """Log-probs of finished beams replaced by 0 at end_token, -inf elsewhere."""
        vocab = int(probs.shape[-1])
        only_end = [float("-inf")] * vocab
        only_end[self.end_token] = 0.0
        end_row = reshape(cast(to_tensor(only_end), probs.dtype), [1, 1, vocab])
        shape = [int(d) for d in probs.shape]
        return where(expand(unsqueeze(finished, 2), shape), expand(end_row, shape), probs)

    def initialize(self, initial_cell_states):
        """(inputs, states, finished) of step 0: start_token in every beam; only the first
        beam of an entry starts live (the others at -inf)."""
        leaves = []
        flatten(initial_cell_states, leaves)
        if not leaves:
            raise ArgumentError("BeamSearchDecoder.initialize: no initial cell states")
        batch = int(leaves[0].shape[0])
        cell_states = map_structure(self._expand_to_beam_size, initial_cell_states)
        inputs = full([batch, self.beam_size], self.start_token, "int64")
        if self.embedding_fn is not None:
            inputs = self.embedding_fn(inputs)
        row = to_tensor([0.0] + [float("-inf")] * (self.beam_size - 1))
        log_probs = tile(reshape(cast(row, "float32"), [1, self.beam_size]), [batch, 1])
        finished = full([batch, self.beam_size], False, "bool")
        lengths = zeros([batch, self.beam_size], "int64")
        return inputs, self.StateWrapper(cell_states, log_probs, finished, lengths), finished

    def _beam_search_step(self, time, logits, next_cell_states, beam_state):
        vocab = int(logits.shape[-1])
        step_log_probs = self._mask_probs(log_softmax(logits, axis=-1), beam_state.finished)
        log_probs = step_log_probs + unsqueeze(cast(beam_state.log_probs, logits.dtype), 2)
        scores = reshape(log_probs, [-1, self.beam_size * vocab])
        top_scores, top_indices = topk(scores, self.beam_size)
        beam_indices = top_indices // vocab
        token_indices = top_indices % vocab
        next_cell_states = map_structure(lambda x: self._gather(x, beam_indices),
                                         next_cell_states)
        next_finished = self._gather(beam_state.finished, beam_indices)
        next_lengths = self._gather(beam_state.lengths, beam_indices)
        next_lengths = next_lengths + cast(logical_not(next_finished), "int64")
        next_finished = logical_or(next_finished, equal(token_indices, self.end_token))
        output = self.OutputWrapper(top_scores, token_indices, beam_indices)
        state = self.StateWrapper(next_cell_states, top_scores, next_finished, next_lengths)
        return output, state

    def step(self, time, inputs, states, **kwargs):
        """One beam-search step: (OutputWrapper, StateWrapper, next inputs, finished)."""
        inputs = map_structure(self._merge_batch_beams, inputs)
        cell_states = map_structure(self._merge_batch_beams, states.cell_states)
        cell_outputs, next_cell_states = self.cell(inputs, cell_states, **kwargs)
        cell_outputs = map_structure(self._split_batch_beams, cell_outputs)
        next_cell_states = map_structure(self._split_batch_beams, next_cell_states)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        output, state = self._beam_search_step(time, cell_outputs, next_cell_states, states)
        ids = output.predicted_ids
        ids.stop_gradient = True
        next_inputs = self.embedding_fn(ids) if self.embedding_fn is not None else ids
        return output, state, next_inputs, state.finished

    def finalize(self, outputs, final_states, sequence_lengths):
        """The predicted ids [steps, batch, beam] traced back through the parents."""
        return gather_tree(outputs.predicted_ids, outputs.parent_ids), final_states

    @property
    def tracks_own_finished(self):
        return True


def dynamic_decode(decoder, inits=None, max_step_num=None, output_time_major=False,
                   impute_finished=False, is_test=False, return_length=False, **kwargs):
    """Steps ``decoder`` from decoder.initialize(inits) until every sequence finished or
    max_step_num steps passed; returns (outputs, final_states[, sequence_lengths]),
    outputs stacked over time (batch-major unless output_time_major) and finalized."""
    if not isinstance(decoder, Decoder):
        raise ArgumentTypeError(f"dynamic_decode: decoder must be a Decoder, got "
                                f"{type(decoder).__name__}")
    if max_step_num is not None and (isinstance(max_step_num, bool) or
                                     not isinstance(max_step_num, int) or max_step_num < 0):
        raise ArgumentError(f"dynamic_decode: max_step_num must be an int >= 0, got "
                            f"{max_step_num!r}")
    inputs, states, finished = decoder.initialize(inits)
    lengths = zeros(list(finished.shape), "int64")
    steps = []
    step = 0
    live = not bool(reduce_all(finished).item())
    while live:
        time = full([1], step, "int64")
        out, next_states, next_inputs, next_finished = decoder.step(time, inputs, states,
                                                                    **kwargs)
        if decoder.tracks_own_finished:
            next_lengths = getattr(next_states, "lengths", lengths)
        else:
            next_finished = logical_or(next_finished, finished)
            next_lengths = lengths + cast(logical_not(finished), "int64")
            if impute_finished:
                next_states = map_structure(
                    lambda old, new: _keep_finished(old, new, finished), states, next_states)
        steps.append(out)
        inputs, states, finished, lengths = next_inputs, next_states, next_finished, \
            next_lengths
        step += 1
        live = not bool(reduce_all(finished).item())
        if max_step_num is not None and step > max_step_num:
            break
    if not steps:
        raise ArgumentError("dynamic_decode: every sequence had finished before the first "
                            "step")
    outputs = map_structure(lambda *xs: stack(list(xs), axis=0), *steps)
    try:
        outputs, states = decoder.finalize(outputs, states, lengths)
    except NotImplementedError:
        pass
    if not output_time_major:
        outputs = map_structure(
            lambda x: transpose(x, [1, 0] + list(range(2, len(x.shape)))), outputs)
    return (outputs, states, lengths) if return_length else (outputs, states)


def _keep_finished(old, new, finished):
    """new, but old in the rows of finished sequences."""
    mask = cast(reshape(finished, list(finished.shape) + [1] * (len(new.shape) -
                                                                 len(finished.shape))),
                new.dtype)
    return new * (1 - mask) + old * mask
