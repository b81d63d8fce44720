"""skiff.Model's loops on a softmax regression written with skiff ops and leaf tensors,
checked against the same training done in numpy (batches, updates, gradient
accumulation, evaluation, prediction), and the callbacks' hooks and effects."""
import numpy as np
import pytest

import skiff
from skiff.hapi import Model
from skiff.hapi.callbacks import Callback, EarlyStopping, LRScheduler
from skiff.io import DataLoader, TensorDataset
from tiny_regression import (CLASSES, FEATURES, SAMPLES, PlainSGD, SoftmaxRegression,
                             cross_entropy, data, initial_weights, make_model,
                             np_loss_and_grads, np_train)


class Recorder(Callback):
    def __init__(self):
        super().__init__()
        self.calls, self.losses = [], []

    def __getattribute__(self, name):
        if name.startswith("on_"):
            calls = object.__getattribute__(self, "calls")
            losses = object.__getattribute__(self, "losses")

            def hook(*args):
                calls.append(name)
                logs = args[-1] if args else None
                if name == "on_train_batch_end":
                    losses.append(logs["loss"][0])
            return hook
        return object.__getattribute__(self, name)


@pytest.mark.parametrize("accumulate", [1, 2])
def test_fit_makes_the_numpy_updates(accumulate):
    x, y = data()
    model, net = make_model()
    rec = Recorder()
    model.fit(TensorDataset([x, y]), batch_size=16, epochs=2, shuffle=False, verbose=0,
              callbacks=[rec], accumulate_grad_batches=accumulate)
    w, b, losses = np_train(*initial_weights(), x, y, 0.5, 16, 2, accumulate)
    np.testing.assert_allclose(net.w.numpy(), w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.b.numpy(), b, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rec.losses, losses, rtol=1e-5)
    assert model._optimizer.steps == 8 // accumulate


def test_evaluate_and_predict_match_numpy():
    x, y = data(3)
    model, net = make_model()
    model.fit(TensorDataset([x, y]), batch_size=16, epochs=1, verbose=0)
    w, b = net.w.numpy().astype(np.float64), net.b.numpy().astype(np.float64)
    result = model.evaluate(TensorDataset([x, y]), batch_size=24, verbose=0)
    last_loss, _, _, _ = np_loss_and_grads(w, b, x[48:], y[48:])
    logits = x @ w + b
    assert sorted(result) == ["acc", "loss"]
    assert result["loss"][0] == pytest.approx(last_loss, rel=1e-5)
    assert result["acc"] == pytest.approx((logits.argmax(1) == y[:, 0]).mean())
    stacked = model.predict(TensorDataset([x, y]), batch_size=24, stack_outputs=True,
                            verbose=0)
    assert len(stacked) == 1 and stacked[0].shape == (SAMPLES, CLASSES)
    np.testing.assert_allclose(stacked[0], logits, rtol=1e-5, atol=1e-5)
    per_batch = model.predict(TensorDataset([x]), batch_size=24, verbose=0)
    assert [o.shape[0] for o in per_batch[0]] == [24, 24, 16]


def test_train_batch_returns_losses_and_metrics():
    x, y = data()
    model, _ = make_model()
    losses, metrics = model.train_batch([x[:16]], [y[:16]])
    w, b = initial_weights()
    loss, _, _, logits = np_loss_and_grads(w, b, x[:16], y[:16])
    assert float(losses[0]) == pytest.approx(loss, rel=1e-5)
    assert metrics[0] == pytest.approx((logits.argmax(1) == y[:16, 0]).mean())
    model_no_metric, _ = make_model(metrics=False)
    only_losses = model_no_metric.eval_batch([x[:16]], [y[:16]])
    assert len(only_losses) == 1 and float(only_losses[0]) == pytest.approx(loss, rel=1e-5)


def test_train_batch_needs_prepare():
    model = Model(SoftmaxRegression(*initial_weights()))
    with pytest.raises(skiff.Error, match="prepare"):
        model.train_batch([np.zeros((2, FEATURES), np.float32)], [np.zeros((2, 1), np.int64)])


def test_prepare_rejects_non_metrics():
    model = Model(SoftmaxRegression(*initial_weights()))
    with pytest.raises(TypeError, match="Metric"):
        model.prepare(None, cross_entropy, metrics=["acc"])


def test_loader_and_nested_batches_are_accepted():
    x, y = data()
    model, net = make_model()
    model.fit(DataLoader(TensorDataset([x, y]), batch_size=16), epochs=1, verbose=0)
    expected = net.w.numpy().copy()
    model2, net2 = make_model()
    nested = [([x[i:i + 16]], [y[i:i + 16]]) for i in range(0, SAMPLES, 16)]
    model2.fit(nested, epochs=1, verbose=0)
    np.testing.assert_allclose(net2.w.numpy(), expected, rtol=1e-6)


def test_two_input_network_takes_two_fields():
    class TwoInputs(SoftmaxRegression):
        def forward(self, x, scale):
            return skiff.matmul(x * scale, self.w) + self.b

        def __call__(self, x, scale):
            return self.forward(x, scale)

    x, y = data()
    net = TwoInputs(*initial_weights())
    model = Model(net)
    model.prepare(PlainSGD(0.5, net.parameters()), cross_entropy)
    ones = np.ones_like(x)
    model.fit(TensorDataset([x, ones, y]), batch_size=16, shuffle=False, verbose=0)
    w, _, _ = np_train(*initial_weights(), x, y, 0.5, 16, 1)
    np.testing.assert_allclose(net.w.numpy(), w, rtol=1e-5, atol=1e-6)


def test_hooks_run_in_order():
    x, y = data()
    model, _ = make_model()
    rec = Recorder()
    model.fit(TensorDataset([x, y]), TensorDataset([x, y]), batch_size=32, epochs=1,
              verbose=0, callbacks=[rec])
    assert rec.calls == [
        "on_train_begin", "on_epoch_begin",
        "on_train_batch_begin", "on_train_batch_end",
        "on_train_batch_begin", "on_train_batch_end", "on_epoch_end",
        "on_eval_begin", "on_eval_batch_begin", "on_eval_batch_end",
        "on_eval_batch_begin", "on_eval_batch_end", "on_eval_end", "on_train_end"]


def test_num_iters_caps_training_steps():
    x, y = data()
    model, _ = make_model()
    rec = Recorder()
    model.fit(TensorDataset([x, y]), batch_size=16, epochs=10, num_iters=5, verbose=0,
              callbacks=[rec])
    assert rec.calls.count("on_train_batch_end") == 5
    assert model._optimizer.steps == 5


def test_early_stopping_stops_when_the_monitor_stalls():
    x, y = data()
    model, _ = make_model(lr=0.0)
    rec = Recorder()
    stop = EarlyStopping(monitor="loss", patience=1, verbose=0, save_best_model=False)
    model.fit(TensorDataset([x, y]), TensorDataset([x, y]), batch_size=32, epochs=6,
              verbose=0, callbacks=[stop, rec])
    assert rec.calls.count("on_epoch_end") == 2
    assert model.stop_training


def test_early_stopping_auto_mode_follows_the_name():
    assert EarlyStopping(monitor="acc").monitor_op is np.greater
    assert EarlyStopping(monitor="loss").monitor_op is np.less
    assert EarlyStopping(monitor="acc", mode="min").monitor_op is np.less


class CountingScheduler:
    def __init__(self):
        self.count = 0

    def step(self):
        self.count += 1


@pytest.mark.parametrize("by_epoch,expected", [(False, 8), (True, 2)])
def test_lr_scheduler_steps_by_batch_or_epoch(by_epoch, expected):
    x, y = data()
    model, _ = make_model()
    model._optimizer._learning_rate = CountingScheduler()
    model.fit(TensorDataset([x, y]), batch_size=16, epochs=2, verbose=0,
              callbacks=[LRScheduler(by_step=not by_epoch, by_epoch=by_epoch)])
    assert model._optimizer._learning_rate.count == expected


def test_lr_scheduler_rejects_both_modes():
    with pytest.raises(ValueError):
        LRScheduler(by_step=True, by_epoch=True)
