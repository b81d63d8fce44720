"""Layers under to_static: an MLP (function form and decorator form) and a small RNN
whose time loop runs as a while op for any sequence length, against the same layers
run eagerly: outputs, parameter gradients, training steps, buffers and train/eval."""
import numpy as np

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from skiff.jit import to_static
from skiff.static import InputSpec


def data(*shape, seed=0):
    return skiff.to_tensor(np.random.default_rng(seed).standard_normal(shape).astype("float32"))


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        if h.mean() > 10.0:  # a branch on a Tensor inside a layer
            h = h * 0.1
        return self.fc2(h)


class DecoratedMLP(MLP):
    @to_static
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def copy_weights(dst, src):
    dst.set_state_dict(src.state_dict())


def grads(layer):
    return {n: p.grad.numpy().copy() for n, p in layer.named_parameters()}


def test_mlp_outputs_and_gradients_match_eager():
    skiff.seed(1)
    eager, static = MLP(), MLP()
    copy_weights(static, eager)
    static = to_static(static)
    x = data(5, 6)
    for layer in (eager, static):
        loss = (layer(x) ** 2).mean()
        loss.backward()
    np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)
    ge, gs = grads(eager), grads(static)
    for name in ge:
        np.testing.assert_allclose(gs[name], ge[name], rtol=1e-5, atol=1e-6)


def test_training_steps_follow_eager():
    skiff.seed(2)
    eager, static = MLP(), MLP()
    copy_weights(static, eager)
    static = to_static(static)
    opts = [skiff.optimizer.SGD(0.1, parameters=m.parameters()) for m in (eager, static)]
    x, y = data(8, 6, seed=3), data(8, 3, seed=4)
    for _ in range(3):
        for layer, opt in zip((eager, static), opts):
            loss = F.mse_loss(layer(x), y)
            loss.backward()
            opt.step()
            opt.clear_grad()
    np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)
    assert len(static.forward.program_cache) == 1  # parameters are inputs: one program


def test_decorated_forward():
    skiff.seed(3)
    layer = DecoratedMLP()
    x = data(4, 6)
    eager = layer.fc2(F.relu(layer.fc1(x)))
    np.testing.assert_allclose(layer(x).numpy(), eager.numpy(), rtol=1e-6)
    other = DecoratedMLP()
    assert not np.allclose(other(x).numpy(), layer(x).numpy())  # per-instance programs


class RNN(nn.Layer):
    def __init__(self, inputs=5, hidden=8):
        super().__init__()
        self.hidden = hidden
        self.cell = nn.Linear(inputs + hidden, hidden)
        self.head = nn.Linear(hidden, 2)

    def forward(self, x):  # x: [time, batch, inputs]
        h = skiff.zeros([x.shape[1], self.hidden], "float32")
        outs = []
        for t in range(x.shape[0]):
            h = skiff.tanh(self.cell(skiff.concat([x[t], h], axis=1)))
            outs.append(h)
        return self.head(skiff.stack(outs).mean(axis=0))


def test_rnn_loop_over_unknown_length():
    skiff.seed(4)
    eager, static = RNN(), RNN()
    copy_weights(static, eager)
    static = to_static(static, input_spec=[InputSpec([None, 3, 5], "float32")])
    for steps in (1, 4, 7):
        x = data(steps, 3, 5, seed=steps)
        for layer in (eager, static):
            layer.clear_gradients()
            layer(x).sum().backward()
        np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)
        ge, gs = grads(eager), grads(static)
        for name in ge:
            np.testing.assert_allclose(gs[name], ge[name], rtol=1e-4, atol=1e-6)
    program = list(static.forward.program_cache.values())[0].program
    assert len(static.forward.program_cache) == 1
    assert "while" in {op.type for op in program.global_block().ops}


class Recurrent(nn.Layer):
    """A library recurrent layer (batch-major input) and a head over its outputs."""

    def __init__(self, layer, with_lengths=False):
        super().__init__()
        self.rnn, self.with_lengths = layer, with_lengths
        self.head = nn.Linear(layer.hidden_size * layer.num_directions, 2)

    def forward(self, x):
        lengths = None
        if self.with_lengths:  # every other sequence one step shorter
            batch, steps = skiff.shape(x)[0], skiff.shape(x)[1]
            lengths = steps - skiff.arange(0, batch, dtype="int64") % 2
        out, _ = self.rnn(x, sequence_length=lengths)
        return self.head(out)


def test_library_rnns_loop_over_unknown_lengths():
    """nn.LSTM / GRU / SimpleRNN traced with an unknown number of steps: one layer op per
    layer and direction over all the steps (not unrolled), equal to eager for any length,
    gradients included."""
    for make, with_lengths, loop in ((lambda: nn.LSTM(5, 6), True, ["lstm"]),
                                     (lambda: nn.GRU(5, 4, direction="bidirect"), False,
                                      ["gru", "gru"]),
                                     (lambda: nn.SimpleRNN(5, 3, num_layers=2), False,
                                      ["simple_rnn", "simple_rnn"])):
        skiff.seed(5)
        eager, static = Recurrent(make(), with_lengths), Recurrent(make(), with_lengths)
        copy_weights(static, eager)
        static = to_static(static, input_spec=[InputSpec([None, None, 5], "float32")])
        for steps in (1, 3, 6):
            x = data(2, steps, 5, seed=steps)
            for layer in (eager, static):
                layer.clear_gradients()
                layer(x).sum().backward()
            np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5,
                                       atol=1e-6)
            ge, gs = grads(eager), grads(static)
            for name in ge:
                np.testing.assert_allclose(gs[name], ge[name], rtol=1e-4, atol=1e-6)
        assert len(static.forward.program_cache) == 1
        program = list(static.forward.program_cache.values())[0].program
        types = [op.type for op in program.global_block().ops]
        assert [t for t in types if t in ("lstm", "gru", "simple_rnn", "while")] == loop


class UserCell(nn.Layer):
    """A cell the library does not know: h' = tanh(x W + h U)."""

    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.w = self.create_parameter([input_size, hidden_size])
        self.u = self.create_parameter([hidden_size, hidden_size])

    def forward(self, x, h):
        h = skiff.tanh(x @ self.w + h @ self.u)
        return h, h


class UserRecurrent(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(UserCell(5, 3))

    def forward(self, x, h0, lengths):
        return self.rnn(x, h0, sequence_length=lengths)[0]


def test_a_users_cell_loops_over_unknown_lengths():
    """nn.RNN over a cell of the user's: looped by Python eagerly (checked against the
    formula), a while op over time when traced with an unknown number of steps; equal to
    eager for any length, gradients included; past a sequence's length the state stays."""
    skiff.seed(7)
    eager, static = UserRecurrent(), UserRecurrent()
    copy_weights(static, eager)
    static = to_static(static, input_spec=[InputSpec([None, None, 5], "float32"),
                                           InputSpec([None, 3], "float32"),
                                           InputSpec([None], "int64")])
    w, u = eager.rnn.cell.w.numpy(), eager.rnn.cell.u.numpy()
    for steps in (1, 3, 6):
        x, h0 = data(2, steps, 5, seed=steps), data(2, 3, seed=steps + 10)
        lengths = skiff.to_tensor(np.array([steps, max(1, steps - 1)], dtype="int64"))
        h, want = h0.numpy(), np.zeros((2, steps, 3), "float32")
        for t in range(steps):
            new = np.tanh(x.numpy()[:, t] @ w + h @ u)
            live = (t < lengths.numpy())[:, None]
            want[:, t] = np.where(live, new, 0.0)
            h = np.where(live, new, h)
        np.testing.assert_allclose(eager(x, h0, lengths).numpy(), want, rtol=1e-5, atol=1e-6)
        for layer in (eager, static):
            layer.clear_gradients()
            layer(x, h0, lengths).sum().backward()
        np.testing.assert_allclose(static(x, h0, lengths).numpy(), want, rtol=1e-5, atol=1e-6)
        ge, gs = grads(eager), grads(static)
        for name in ge:
            np.testing.assert_allclose(gs[name], ge[name], rtol=1e-4, atol=1e-6)
    program = list(static.forward.program_cache.values())[0].program
    assert "while" in {op.type for op in program.global_block().ops}


class Normed(nn.Layer):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1D(4)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        return self.drop(self.bn(x))


def test_buffers_and_train_eval():
    skiff.seed(5)
    eager, static = Normed(), Normed()
    copy_weights(static, eager)
    static = to_static(static)
    x = data(6, 4)
    for layer in (eager, static):
        layer.eval()
        layer(x)
    np.testing.assert_allclose(static(x).numpy(), eager(x).numpy(), rtol=1e-5, atol=1e-6)
    for layer in (eager, static):
        layer.train()
        out = layer(x)
    assert (out.numpy() == 0).any()  # dropout is on in training
    np.testing.assert_allclose(static.bn._mean.numpy(), eager.bn._mean.numpy(), rtol=1e-6)
    np.testing.assert_allclose(static.bn._variance.numpy(), eager.bn._variance.numpy(), rtol=1e-6)
    assert not np.allclose(static.bn._mean.numpy(), 0)
    assert len(static.forward.program_cache) == 2  # one program for eval, one for train
