"""Recurrent layers (paddle.nn.RNN, BiRNN, SimpleRNN, LSTM, GRU). The input gates of
every step come from one matmul. A library cell (LSTMCell, GRUCell, SimpleRNNCell) then
runs all the steps in one op (`lstm` / `gru` / `simple_rnn`, the layers the C++ API builds
too), eagerly and in programs alike, the number of steps known or not. A user's cell is
looped over the steps in Python: in a static program (skiff.static, to_static, jit.save)
unrolled over a known number of steps, or a `while` op over the steps when the number is
known only at run time."""
from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...framework.mode import mode
from ...framework.tensor_params import TENSOR, accepts
from ...tensor import array as tensor_array
from ...tensor.control_flow import while_loop
from ...tensor.run_dims import dim
from .. import functional as F
from ...framework.arguments import dtype_name_of
from ...tensor.manipulation import concat, slice, split, squeeze, stack
from ...tensor.math import add, cast, multiply, subtract
from .container import LayerList
from .layers import Layer
from .rnn_cells import GRUCell, LSTMCell, SimpleRNNCell

__all__ = ["RNN", "BiRNN", "SimpleRNN", "LSTM", "GRU"]


def _zip_states(fn, a, b):
    if isinstance(a, (list, tuple)):
        return type(a)(_zip_states(fn, x, y) for x, y in zip(a, b))
    return fn(a, b)


def _step_masks(inputs, sequence_length, steps):
    """Per step, a [batch, 1] float mask: 1 where the step is within the sequence."""
    positions = _C_ops.arange(None, None, None, start=0.0, end=float(steps), step=1.0,
                              dtype="int64")
    lengths = _C_ops.unsqueeze(cast(sequence_length, "int64"), axes=[1])
    valid = _C_ops.less_than(_C_ops.unsqueeze(positions, axes=[0]), lengths)  # [batch, steps]
    mask = cast(valid, dtype_name_of(inputs))
    return [slice(mask, [1], [t], [t + 1]) for t in range(steps)]


def run_cell(cell, inputs, states, sequence_length, is_reverse, time_major, **kwargs):
    """(outputs, final states) of ``cell`` looped over the time axis of ``inputs``."""
    time_axis = 0 if time_major else 1
    shape = list(inputs.shape)
    if len(shape) < 3:
        raise _C.Error(f"{type(cell).__name__} over a sequence: expected an input [batch, "
                       f"time, input_size] (time_major: [time, batch, ...]), got shape {shape}")
    if hasattr(cell, "_run_layer") and not kwargs:
        return _run_layer(cell, inputs, states, sequence_length, is_reverse, time_major)
    steps = int(shape[time_axis])
    if steps < 0 and mode.static:
        return _run_cell_while(cell, inputs, states, sequence_length, is_reverse, time_major,
                               **kwargs)
    fused = hasattr(cell, "_step")
    seq = cell._input_gates(inputs) if fused else inputs
    pieces = [seq] if steps == 1 else split(seq, steps, time_axis)
    pieces = [squeeze(p, [time_axis]) for p in pieces]
    masks = None if sequence_length is None else _step_masks(inputs, sequence_length, steps)
    if fused:
        prepared = cell._prepare()
        if states is None:
            states = cell._initial(pieces[0])
    outputs = [None] * steps
    for t in (range(steps - 1, -1, -1) if is_reverse else range(steps)):
        if fused:
            out, new_states = cell._step(pieces[t], states, prepared)
        else:
            out, new_states = cell(pieces[t], states, **kwargs)
        if masks is not None:
            m = masks[t]
            out = multiply(out, m)
            if states is not None:
                new_states = _zip_states(lambda new, old: add(old, multiply(m, subtract(new, old))),
                                         new_states, states)
        outputs[t] = out
        states = new_states
    return stack(outputs, time_axis), states


def _run_layer(cell, inputs, states, sequence_length, is_reverse, time_major):
    """run_cell for a cell with a layer op: every step in one op over [T, B, G * H]."""
    gates = cell._input_gates(inputs)
    if not time_major:
        gates = _C_ops.transpose(gates, axis=[1, 0, 2])
    if states is None:
        states = cell._initial(squeeze(slice(gates, [0], [0], [1]), [0]))
    lengths = None if sequence_length is None else cast(sequence_length, "int64")
    out, states = cell._run_layer(gates, states, lengths, is_reverse)
    if not time_major:
        out = _C_ops.transpose(out, axis=[1, 0, 2])
    return out, states


def _run_cell_while(cell, inputs, states, sequence_length, is_reverse, time_major, **kwargs):
    """run_cell when the number of steps is known only at run time (static mode): a while
    op over the time axis whose steps write their outputs to a tensor array."""
    fused = hasattr(cell, "_step")
    if states is None and not fused:
        raise _C.Error(f"{type(cell).__name__} over a sequence of unknown length: pass "
                       f"initial_states (its batch size is not known while building)")
    seq = cell._input_gates(inputs) if fused else inputs
    if not time_major:  # to [time, batch, ...]
        seq = _C_ops.transpose(seq, axis=list([1, 0] + list(range(2, len(seq.shape)))))
    steps = dim(seq, 0)
    prepared = cell._prepare() if fused else None
    if states is None:
        states = cell._initial(squeeze(slice(seq, [0], [0], [1]), [0]))
    dtype = dtype_name_of(seq)
    lengths = None if sequence_length is None else cast(sequence_length, "int64")
    one = tensor_array.constant(1, "int64")

    def step_of(i):
        return subtract(subtract(steps, one), i) if is_reverse else i

    outputs = tensor_array.create(dtype)  # written in place by the steps, not a loop variable

    def body(i, states):
        t = step_of(i)
        piece = _C_ops.gather(seq, t, axis=0)
        if fused:
            out, new_states = cell._step(piece, states, prepared)
        else:
            out, new_states = cell(piece, states, **kwargs)
        if lengths is not None:  # steps past a sequence's length leave its state alone
            m = _C_ops.unsqueeze(cast(_C_ops.less_than(t, lengths), dtype), axes=[1])
            out = multiply(out, m)
            new_states = _zip_states(lambda new, old: add(old, multiply(m, subtract(new, old))),
                                     new_states, states)
        tensor_array.write(outputs, t, out)
        return add(i, one), new_states

    _, states = while_loop(lambda i, s: _C_ops.less_than(i, steps), body,
                           [tensor_array.constant(0, "int64"), states])
    out = tensor_array.to_tensor(outputs, 0, True)
    if not time_major:
        out = _C_ops.transpose(out, axis=list([1, 0] + list(range(2, len(out.shape)))))
    return out, states


def _check_cell(where, param, cell):
    """Raises an ArgumentTypeError naming ``where`` unless ``cell`` can be an RNN cell (a
    Layer called as cell(inputs, states))."""
    if not isinstance(cell, Layer):
        raise arguments.ArgumentTypeError(f"{where}: {param} must be an RNN cell (a Layer "
                                          f"such as SimpleRNNCell, LSTMCell, GRUCell), got "
                                          f"{type(cell).__name__}")


class RNN(Layer):
    """Runs ``cell`` over the time axis of ``inputs`` ([batch, time, ...], or [time,
    batch, ...] with time_major), backwards with is_reverse. forward(inputs,
    initial_states=None, sequence_length=None) -> (outputs, final_states); past a
    sequence's length the outputs are zero and the states stop changing."""

    def __init__(self, cell, is_reverse=False, time_major=False):
        super().__init__()
        _check_cell("RNN", "cell", cell)
        self.cell, self.is_reverse = cell, arguments.flag("RNN", "is_reverse", is_reverse)
        self.time_major = arguments.flag("RNN", "time_major", time_major)

    @accepts(inputs=TENSOR)
    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        return run_cell(self.cell, inputs, initial_states, sequence_length, self.is_reverse,
                        self.time_major, **kwargs)


class BiRNN(Layer):
    """A forward and a backward cell over the same inputs; outputs concatenated on the
    last axis, final states as (forward states, backward states)."""

    def __init__(self, cell_fw, cell_bw, time_major=False):
        super().__init__()
        _check_cell("BiRNN", "cell_fw", cell_fw)
        _check_cell("BiRNN", "cell_bw", cell_bw)
        self.cell_fw, self.cell_bw = cell_fw, cell_bw
        self.time_major = arguments.flag("BiRNN", "time_major", time_major)

    @accepts(inputs=TENSOR)
    def forward(self, inputs, initial_states=None, sequence_length=None, **kwargs):
        states_fw, states_bw = (None, None) if initial_states is None else initial_states
        out_fw, st_fw = run_cell(self.cell_fw, inputs, states_fw, sequence_length, False,
                                 self.time_major, **kwargs)
        out_bw, st_bw = run_cell(self.cell_bw, inputs, states_bw, sequence_length, True,
                                 self.time_major, **kwargs)
        return concat([out_fw, out_bw], -1), (st_fw, st_bw)


class RNNBase(LayerList):
    """Stacked (and optionally bidirectional) recurrent layers. Parameters appear under
    PyTorch-style flat names (weight_ih_l0, bias_hh_l1_reverse, ...) and under their
    cells ("0.cell.weight_ih"), as in Paddle. forward(inputs, initial_states=None,
    sequence_length=None) -> (outputs, final states [num_layers * directions, batch,
    hidden])."""

    _cell_type = None

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, **cell_kwargs):
        super().__init__()
        where = type(self).__name__
        arguments.choice(where, "direction", direction, ("forward", "bidirect", "bidirectional"))
        self.input_size = arguments.count(where, "input_size", input_size, low=1)
        self.hidden_size = arguments.count(where, "hidden_size", hidden_size, low=1)
        self.num_layers = arguments.count(where, "num_layers", num_layers, 0,
                                          arguments.MAX_LAYERS, "the deepest stack skiff builds")
        self.time_major = arguments.flag(where, "time_major", time_major)
        self.dropout = arguments.real(where, "dropout", dropout, low=0, high=1)
        self.num_directions = 1 if direction == "forward" else 2
        self.direction = direction
        self._cell_kwargs = cell_kwargs
        attrs = dict(weight_ih_attr=weight_ih_attr, weight_hh_attr=weight_hh_attr,
                     bias_ih_attr=bias_ih_attr, bias_hh_attr=bias_hh_attr, **cell_kwargs)
        for i in range(num_layers):
            size = input_size if i == 0 else hidden_size * self.num_directions
            cells = [self._cell_type(size, hidden_size, **attrs)
                     for _ in range(self.num_directions)]
            if self.num_directions == 1:
                self.append(RNN(cells[0], False, time_major))
            else:
                self.append(BiRNN(cells[0], cells[1], time_major))
            for cell, suffix in zip(cells, ("", "_reverse")):
                for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                    p = getattr(cell, kind)
                    if p is not None:
                        self.add_parameter(f"{kind}_l{i}{suffix}", p)

    def _split_initial(self, states):
        """Per layer: the state (or (fw, bw) pair) sliced from [L * D, batch, hidden]."""
        n = self.num_layers * self.num_directions

        def parts(t):
            pieces = [t] if n == 1 else split(t, n, 0)
            return [squeeze(p, [0]) for p in pieces]

        if self._cell_type is LSTMCell:
            hs, cs = parts(states[0]), parts(states[1])
            per = [(h, c) for h, c in zip(hs, cs)]
        else:
            per = parts(states)
        d = self.num_directions
        return [per[i] if d == 1 else (per[2 * i], per[2 * i + 1])
                for i in range(self.num_layers)]

    @accepts(inputs=TENSOR)
    def forward(self, inputs, initial_states=None, sequence_length=None):
        layer_states = (self._split_initial(initial_states) if initial_states is not None
                        else [None] * self.num_layers)
        finals = []
        out = inputs
        for i, layer in enumerate(self):
            if i > 0 and self.dropout > 0.0:
                out = F.dropout(out, self.dropout, training=self.training)
            out, state = layer(out, layer_states[i], sequence_length)
            finals.extend(state if self.num_directions == 2 else [state])
        if self._cell_type is LSTMCell:
            return out, (stack([s[0] for s in finals], 0), stack([s[1] for s in finals], 0))
        return out, stack(finals, 0)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.direction != "forward":
            s += f", direction={self.direction}"
        if self.time_major:
            s += ", time_major=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        return s


class SimpleRNN(RNNBase):
    """Stacked Elman RNN (activation 'tanh' or 'relu')."""

    _cell_type = SimpleRNNCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr,
                         activation=activation)


class LSTM(RNNBase):
    """Stacked LSTM; final states are (h, c)."""

    _cell_type = LSTMCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        if proj_size:
            raise _C.Error("LSTM: proj_size (projected hidden states) is not supported")
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)


class GRU(RNNBase):
    """Stacked GRU."""

    _cell_type = GRUCell

    def __init__(self, input_size, hidden_size, num_layers=1, direction="forward",
                 time_major=False, dropout=0.0, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__(input_size, hidden_size, num_layers, direction, time_major, dropout,
                         weight_ih_attr, weight_hh_attr, bias_ih_attr, bias_hh_attr)
