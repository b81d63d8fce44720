"""SimpleRNN, LSTM, GRU and their cells against torch.nn.LSTM/GRU/RNN with the same
weights (outputs, final states, gradients of inputs, initial states and every weight),
and against Paddle for sequence lengths."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn
from nn_reference import close, rand, set_param, tensor, torch_tensor

KINDS = {"lstm": (nn.LSTM, torch.nn.LSTM), "gru": (nn.GRU, torch.nn.GRU),
         "rnn": (nn.SimpleRNN, torch.nn.RNN)}


def _pair(kind, input_size, hidden, **kw):
    layer = KINDS[kind][0](input_size, hidden, **kw).double()
    tkw = {"num_layers": kw.get("num_layers", 1),
           "bidirectional": kw.get("direction", "forward") != "forward",
           "batch_first": not kw.get("time_major", False)}
    ref = KINDS[kind][1](input_size, hidden, **tkw).double()
    for name, p in ref.named_parameters():  # the same names and layouts as PyTorch
        set_param(getattr(layer, name), p)
    return layer, ref


def _grad_weights(out_t, seed):
    return rand(*out_t.shape, seed=seed)


def _backward(sk_outs, th_outs):
    sk_total, th_total = None, None
    for i, (a, b) in enumerate(zip(sk_outs, th_outs)):
        w = _grad_weights(b, 50 + i)
        s = skiff.sum(a * tensor(w))
        sk_total = s if sk_total is None else sk_total + s
        t = (b * torch.tensor(w)).sum()
        th_total = t if th_total is None else th_total + t
    sk_total.backward()
    th_total.backward()


CONFIGS = [dict(), dict(num_layers=2), dict(direction="bidirect"),
           dict(num_layers=2, direction="bidirectional", time_major=True)]


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=["single", "stacked", "bidirect", "stacked_bi_tm"])
def test_recurrent_layers_match_torch(kind, cfg):
    layer, ref = _pair(kind, 3, 5, **cfg)
    x = rand(4, 6, 3)  # [batch, time, input] (time-major: [time, batch, input])
    xs, xt = tensor(x, True), torch_tensor(x, True)
    out, state = layer(xs)
    out_t, state_t = ref(xt)
    close(out, out_t, what="outputs")
    if kind == "lstm":
        close(state[0], state_t[0], what="h")
        close(state[1], state_t[1], what="c")
        _backward([out, state[0], state[1]], [out_t, state_t[0], state_t[1]])
    else:
        close(state, state_t, what="final state")
        _backward([out, state], [out_t, state_t])
    close(xs.grad, xt.grad, what="input gradient")
    for name, p in ref.named_parameters():
        close(getattr(layer, name).grad, p.grad, what=name)


@pytest.mark.parametrize("kind", ["lstm", "gru"])
def test_initial_states_and_their_gradients(kind):
    layer, ref = _pair(kind, 2, 3, num_layers=2)
    x = rand(3, 4, 2)
    h0 = rand(2, 3, 3, seed=1)
    c0 = rand(2, 3, 3, seed=2)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    hs, ht = tensor(h0, True), torch_tensor(h0, True)
    if kind == "lstm":
        cs, ct = tensor(c0, True), torch_tensor(c0, True)
        out, (h, c) = layer(xs, (hs, cs))
        out_t, (h_t, c_t) = ref(xt, (ht, ct))
        _backward([out, h, c], [out_t, h_t, c_t])
        close(cs.grad, ct.grad)
    else:
        out, h = layer(xs, hs)
        out_t, h_t = ref(xt, ht)
        _backward([out, h], [out_t, h_t])
    close(out, out_t)
    close(hs.grad, ht.grad)
    close(xs.grad, xt.grad)


def test_cells_match_torch():
    x, h, c = rand(4, 3), rand(4, 5, seed=1), rand(4, 5, seed=2)
    for cell_cls, ref_cls in ((nn.LSTMCell, torch.nn.LSTMCell), (nn.GRUCell, torch.nn.GRUCell),
                              (nn.SimpleRNNCell, torch.nn.RNNCell)):
        cell, ref = cell_cls(3, 5).double(), ref_cls(3, 5).double()
        for name, p in ref.named_parameters():
            set_param(getattr(cell, name), p)
        xs, xt = tensor(x, True), torch_tensor(x, True)
        if cell_cls is nn.LSTMCell:
            out, (h2, c2) = cell(xs, (tensor(h), tensor(c)))
            h_t, c_t = ref(xt, (torch.tensor(h), torch.tensor(c)))
            close(c2, c_t)
        else:
            out, h2 = cell(xs, tensor(h))
            h_t = ref(xt, torch.tensor(h))
        close(out, h_t)
        _backward([out], [h_t])
        close(xs.grad, xt.grad)
        close(cell.weight_hh.grad, ref.weight_hh.grad)
    # without states: zeros
    out, _ = nn.GRUCell(3, 5)(tensor(rand(2, 3, dtype="float32")))
    assert out.shape == [2, 5]


@pytest.mark.parametrize("direction", ["forward", "bidirect"])
def test_sequence_length_matches_paddle(direction, paddle):
    layer = nn.LSTM(3, 4, direction=direction)
    ref = paddle.nn.LSTM(3, 4, direction=direction)
    layer.set_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    x = rand(3, 5, 3, dtype="float32")
    lengths = np.array([5, 2, 3], "int64")
    out, (h, c) = layer(tensor(x), sequence_length=tensor(lengths))
    out_p, (h_p, c_p) = ref(paddle.to_tensor(x), sequence_length=paddle.to_tensor(lengths))
    close(out, out_p.numpy(), "float32")
    close(h, h_p.numpy(), "float32")
    close(c, c_p.numpy(), "float32")


def test_state_dict_has_paddles_keys(paddle):
    ours = nn.GRU(2, 3, num_layers=2, direction="bidirect")
    theirs = paddle.nn.GRU(2, 3, num_layers=2, direction="bidirect")
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [list(p.shape) for p in ours.parameters()] == [p.shape for p in theirs.parameters()]
    assert len(ours.parameters()) == 16


def test_dropout_between_layers_only_in_training():
    layer = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = tensor(rand(2, 5, 3, dtype="float32"))
    layer.eval()
    a, _ = layer(x)
    b, _ = layer(x)
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    layer.train()
    c, _ = layer(x)
    assert not np.allclose(a.numpy(), c.numpy())


def test_recurrent_errors_name_the_cell():
    with pytest.raises(skiff.Error, match=r"LSTMCell.*input_size = 3.*\[2, 5, 4\]"):
        nn.LSTM(3, 4)(tensor(rand(2, 5, 4, dtype="float32")))
    with pytest.raises(skiff.Error, match=r"GRUCell over a sequence.*\[2, 3\]"):
        nn.GRU(3, 4)(tensor(rand(2, 3, dtype="float32")))
    with pytest.raises(ValueError, match="direction"):
        nn.LSTM(3, 4, direction="both")


def test_repr_like_paddle():
    assert repr(nn.LSTM(2, 3)) == "LSTM(2, 3\n  (0): RNN(\n    (cell): LSTMCell(2, 3)\n  )\n)"
