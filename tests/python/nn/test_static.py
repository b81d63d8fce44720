"""The same layers in static programs: built with skiff.enable_static(), run by the
Executor with the eager model's parameter values, they give the eager outputs, parameter
gradients and running statistics; functions of several families in one program give the
eager values and gradients."""
import contextlib

import numpy as np
import pytest

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import rand
from static_twin import assert_static_matches_eager


@contextlib.contextmanager
def static_mode():
    import skiff.static as st
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            yield st, main, startup
    finally:
        skiff.disable_static()


def run_static_twin(make, feeds, forward, fetch_grads=True):
    """Builds ``make()`` eagerly and in a program, gives the program the eager values,
    and returns (eager outputs, static outputs, eager grads, static grads, eager layer,
    static scope values of the state dict)."""
    skiff.seed(1)
    eager = make()
    inputs = {k: skiff.to_tensor(v) for k, v in feeds.items()}
    out = forward(eager, **inputs)
    loss = skiff.sum(out) if fetch_grads else None
    if loss is not None:
        loss.backward()
    eager_grads = {k: p.grad.numpy().copy() for k, p in eager.named_parameters()
                   if p.grad is not None}
    with static_mode() as (st, main, startup):
        layer = make()
        data = {k: st.data(k, [None] + list(v.shape[1:]), v.dtype.name) for k, v in
                feeds.items()}
        s_out = forward(layer, **data)
        fetch = [s_out]
        names = []
        if fetch_grads:
            s_loss = skiff.sum(s_out)
            pairs = st.append_backward(s_loss)
            grad_of = {p.name: g for p, g in pairs}
            for k, p in layer.named_parameters():
                if p.name in grad_of:
                    names.append(k)
                    fetch.append(grad_of[p.name])
        exe = st.Executor()
        exe.run(startup)
        scope = st.global_scope()
        eager_params = dict(eager.named_parameters())
        for key, var in layer.named_parameters():  # running statistics keep their start
            scope.set(var.name, np.array(eager_params[key].numpy()))
        fetched = exe.run(main, feed=feeds, fetch_list=fetch)
        state = {key: np.array(scope.get(var.name).numpy())
                 for key, var in layer.state_dict().items()}
    return out.numpy(), fetched[0], eager_grads, dict(zip(names, fetched[1:])), eager, state


def _close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol)


def _check(result, grads=True):
    eager_out, static_out, eager_grads, static_grads, _, _ = result
    _close(static_out, eager_out)
    if grads:
        assert set(static_grads) == set(eager_grads) and static_grads
        for k in eager_grads:
            _close(static_grads[k], eager_grads[k], rtol=1e-4, atol=1e-5)


def _rand(*shape, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype("float32")


def test_mlp_in_a_static_program():
    make = lambda: nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Dropout(0.0), nn.Linear(6, 3),
                                 nn.LayerNorm(3), nn.GELU())
    _check(run_static_twin(make, {"x": _rand(5, 4)}, lambda m, x: m(x)))


def test_cross_entropy_loss_in_a_static_program():
    make = lambda: nn.Linear(4, 3)
    labels = np.array([0, 2, 1, 1, 0], "int64")

    def forward(m, x, y):
        return F.cross_entropy(m(x), y, reduction="none")

    _check(run_static_twin(make, {"x": _rand(5, 4), "y": labels}, forward))


class SmallCNN(nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2D(4)
        self.pool = nn.MaxPool2D(2)
        self.avg = nn.AdaptiveAvgPool2D(1)
        self.fc = nn.Linear(4, 3)

    def forward(self, x):
        h = self.avg(self.pool(F.relu(self.bn(self.conv(x)))))
        return self.fc(nn.Flatten()(h))


def test_cnn_with_batch_norm_in_a_static_program():
    x = _rand(3, 2, 6, 6)

    def forward(m, x):
        return m(x)

    result = run_static_twin(SmallCNN, {"x": x}, forward)
    _check(result)
    eager, state = result[4], result[5]
    _close(state["bn._mean"], eager.bn._mean.numpy())  # updated by the program too
    _close(state["bn._variance"], eager.bn._variance.numpy())


def test_cnn_in_eval_mode_in_a_static_program():
    def make():
        m = SmallCNN()
        m.eval()
        return m

    _check(run_static_twin(make, {"x": _rand(2, 2, 4, 4)}, lambda m, x: m(x)))


class Tagger(nn.Layer):
    def __init__(self, cell):
        super().__init__()
        self.embed = nn.Embedding(10, 4, padding_idx=0)
        self.rnn = (nn.LSTM if cell == "lstm" else nn.GRU)(4, 5, num_layers=2,
                                                           direction="bidirect")
        self.fc = nn.Linear(10, 2)

    def forward(self, ids):
        out, _ = self.rnn(self.embed(ids))
        return self.fc(out)


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_recurrent_model_with_unknown_batch_in_a_static_program(cell):
    ids = np.array([[1, 4, 0, 3], [2, 2, 9, 0], [5, 6, 7, 8]], "int64")
    _check(run_static_twin(lambda: Tagger(cell), {"ids": ids}, lambda m, ids: m(ids)))


def test_transformer_encoder_in_a_static_program():
    def make():
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        return nn.TransformerEncoder(layer, 2)

    x = _rand(2, 5, 8)
    _check(run_static_twin(make, {"x": x}, lambda m, x: m(x)))


def test_static_layers_hold_program_parameters():
    with static_mode() as (st, main, startup):
        fc = nn.Linear(3, 2)
        assert isinstance(fc.weight, st.Parameter)
        assert [p.name for p in fc.parameters()] == [fc.weight.name, fc.bias.name]
        assert fc.weight.name in [v.name for v in main.all_parameters()]
        bn = nn.BatchNorm1D(3)
        assert list(bn.state_dict()) == ["weight", "bias", "_mean", "_variance"]
        assert bn._mean.persistable and not bn._mean.trainable


def test_functions_in_a_static_program():
    feeds = {"x": rand(2, 8, 4, 4, dtype="float32"), "y": rand(2, 8, 4, 4, seed=1,
                                                              dtype="float32")}

    def fn(x, y):
        shuffled = F.channel_shuffle(F.pixel_unshuffle(x, 2), 4)
        dist = F.pairwise_distance(x, y, 3.0)
        out, _ = F.rms_norm(y, [4, 4])
        normed = F.local_response_norm(out, 3)
        return skiff.sum(shuffled) + skiff.sum(dist) + skiff.sum(normed * x)

    assert_static_matches_eager(fn, feeds, ["x", "y"], rtol=1e-4, atol=1e-5)
