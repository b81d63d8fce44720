"""Recurrent cells (paddle.nn.SimpleRNNCell, LSTMCell, GRUCell): one time step each,
over the fused lstm_cell / gru_cell ops (SimpleRNN: matmul + activation). Weights use
Paddle's layout: weight_ih [gates * hidden, input], weight_hh [gates * hidden, hidden]."""
import math

from ... import _C
from ... import _C_ops
from ...framework import arguments
from ...framework.tensor_params import TENSOR, accepts
from .. import functional as F
from ...framework.arguments import dtype_name_of
from ...tensor.creation import full
from ...tensor.linalg import matmul
from ...tensor.manipulation import slice
from ...tensor.math import add
from ...tensor.scalars import constant_like
from ..initializer import Uniform
from .layers import Layer

__all__ = ["RNNCellBase", "SimpleRNNCell", "LSTMCell", "GRUCell"]


class RNNCellBase(Layer):
    """A cell: ``forward(inputs, states)`` -> (outputs, new_states). Subclasses also give
    the sequence path used by RNN: ``_input_gates`` (every step at once), ``_prepare``
    (per-sequence tensors) and ``_step``."""

    _gates = 1

    def _make_weights(self, input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                      bias_ih_attr, bias_hh_attr):
        where = type(self).__name__
        self.input_size = arguments.count(where, "input_size", input_size, low=1)
        self.hidden_size = arguments.count(where, "hidden_size", hidden_size, low=1)
        bound = 1.0 / math.sqrt(hidden_size)
        init = Uniform(-bound, bound)
        g = self._gates * self.hidden_size
        self.weight_ih = self.create_parameter([g, self.input_size], weight_ih_attr,
                                               default_initializer=init)
        self.weight_hh = self.create_parameter([g, self.hidden_size], weight_hh_attr,
                                               default_initializer=init)
        self.bias_ih = self.create_parameter([g], bias_ih_attr, is_bias=True,
                                             default_initializer=init)
        self.bias_hh = self.create_parameter([g], bias_hh_attr, is_bias=True,
                                             default_initializer=init)

    @property
    def state_shape(self):
        return (self.hidden_size,)

    def get_initial_states(self, batch_ref, shape=None, dtype=None, init_value=0.0,
                           batch_dim_idx=0):
        """States filled with ``init_value``, batch size taken from ``batch_ref``."""
        where = type(self).__name__ + ".get_initial_states"
        arguments.tensor(where, "batch_ref", batch_ref)
        batch = batch_ref.shape[arguments.axis(where, batch_dim_idx, len(batch_ref.shape),
                                               "batch_dim_idx")]
        if batch < 0:
            raise _C.Error(f"{type(self).__name__}.get_initial_states: the batch size of the "
                           f"reference {list(batch_ref.shape)} is unknown")
        dtype = dtype_name_of(batch_ref) if dtype is None else arguments.dtype(where, dtype)
        init_value = arguments.number(where, "init_value", init_value)
        shapes = self.state_shape if shape is None else shape
        if not isinstance(shapes, (list, tuple)) or not shapes:
            raise arguments.ArgumentTypeError(f"{where}: shape must be a non-empty list or "
                                              f"tuple of dims (or of shapes), got {shapes!r}")
        if isinstance(shapes[0], (list, tuple)):
            return tuple(full([batch] + list(s), init_value, dtype) for s in shapes)
        return full([batch] + list(shapes), init_value, dtype)

    def _check_input(self, x):
        shape = list(x.shape)
        if not shape or (shape[-1] >= 0 and shape[-1] != self.input_size):
            raise _C.Error(f"{type(self).__name__}: the input's last dim must be input_size = "
                           f"{self.input_size}, got input shape {shape}")

    def _input_gates(self, x):
        """x · weight_ih^T for inputs of any leading dims."""
        self._check_input(x)
        return matmul(x, self.weight_ih, transpose_y=True)

    def _zero_state(self, gates):
        """A zero [batch, hidden] state for steps whose input gates are ``gates``."""
        batch = int(gates.shape[0])
        if batch >= 0:
            return full([batch, self.hidden_size], 0.0, dtype_name_of(gates))
        part = slice(gates, [1], [0], [self.hidden_size])
        part.stop_gradient = True  # only its shape is used
        return constant_like(part, 0.0)

    @accepts(inputs=TENSOR)
    def forward(self, inputs, states=None):
        prepared = self._prepare()
        gates = self._input_gates(inputs)
        if states is None:
            states = self._initial(gates)
        return self._step(gates, states, prepared)

    def extra_repr(self):
        return f"{self.input_size}, {self.hidden_size}"


class SimpleRNNCell(RNNCellBase):
    """h' = act(x · W_ih^T + b_ih + h · W_hh^T + b_hh), act tanh or relu."""

    def __init__(self, input_size, hidden_size, activation="tanh", weight_ih_attr=None,
                 weight_hh_attr=None, bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self.activation = arguments.choice("SimpleRNNCell", "activation", activation,
                                           ("tanh", "relu"))
        self._act = F.tanh if activation == "tanh" else F.relu
        self._make_weights(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    def _input_gates(self, x):
        gates = RNNCellBase._input_gates(self, x)
        for b in (self.bias_ih, self.bias_hh):
            if b is not None:
                gates = add(gates, b)
        return gates

    def _prepare(self):
        return self.weight_hh

    def _initial(self, gates):
        return self._zero_state(gates)

    def _step(self, gates, h, weight_hh):
        h = self._act(add(gates, matmul(h, weight_hh, transpose_y=True)))
        return h, h

    def _run_layer(self, gates, h, lengths, is_reverse):
        """All steps in one simple_rnn op: gates [T, B, H] (biases added) -> (outputs, h)."""
        weight_hh = _C_ops.transpose(self.weight_hh, axis=[1, 0])
        out, h = _C_ops.simple_rnn(gates, h, weight_hh, lengths, is_reverse=is_reverse,
                                   activation=self.activation)[:2]
        return out, h

    def extra_repr(self):
        act = f", activation={self.activation}" if self.activation != "tanh" else ""
        return f"{self.input_size}, {self.hidden_size}{act}"


class LSTMCell(RNNCellBase):
    """LSTM step (gates i, f, g, o as Paddle and PyTorch): states (h, c) -> (h', c');
    forward returns (h', (h', c'))."""

    _gates = 4

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, proj_size=0, name=None):
        super().__init__()
        if proj_size:
            raise _C.Error("LSTMCell: proj_size (projected hidden states) is not supported")
        self._make_weights(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    @property
    def state_shape(self):
        return ((self.hidden_size,), (self.hidden_size,))

    def _prepare(self):
        bias = None
        if self.bias_ih is not None and self.bias_hh is not None:
            bias = add(self.bias_ih, self.bias_hh)
        else:
            bias = self.bias_ih if self.bias_ih is not None else self.bias_hh
        return _C_ops.transpose(self.weight_hh, axis=[1, 0]), bias

    def _initial(self, gates):
        return self._zero_state(gates), self._zero_state(gates)

    def _step(self, gates, states, prepared):
        h, c = states
        weight_hh, bias = prepared
        h, c, _ = _C_ops.lstm_cell(None, gates, h, None, weight_hh, c, bias)
        return h, (h, c)

    def _run_layer(self, gates, states, lengths, is_reverse):
        """All steps in one lstm op: gates [T, B, 4H] (the input side of every step) ->
        (outputs [T, B, H], (h, c) after the last step)."""
        h, c = states
        weight_hh, bias = self._prepare()
        out, h, c = _C_ops.lstm(gates, h, c, weight_hh, bias, lengths,
                                is_reverse=is_reverse)[:3]
        return out, (h, c)


class GRUCell(RNNCellBase):
    """GRU step (gates r, z, n as Paddle and PyTorch): h' = (1 - z) * n + z * h;
    forward returns (h', h')."""

    _gates = 3

    def __init__(self, input_size, hidden_size, weight_ih_attr=None, weight_hh_attr=None,
                 bias_ih_attr=None, bias_hh_attr=None, name=None):
        super().__init__()
        self._make_weights(input_size, hidden_size, weight_ih_attr, weight_hh_attr,
                           bias_ih_attr, bias_hh_attr)

    def _prepare(self):
        return _C_ops.transpose(self.weight_hh, axis=[1, 0])

    def _initial(self, gates):
        return self._zero_state(gates)

    def _step(self, gates, h, weight_hh):
        h, _ = _C_ops.gru_cell(None, gates, h, None, weight_hh, self.bias_ih, self.bias_hh)
        return h, h

    def _run_layer(self, gates, h, lengths, is_reverse):
        """All steps in one gru op: gates [T, B, 3H] -> (outputs [T, B, H], h)."""
        out, h = _C_ops.gru(gates, h, self._prepare(), self.bias_ih, self.bias_hh, lengths,
                            is_reverse=is_reverse)[:2]
        return out, h
