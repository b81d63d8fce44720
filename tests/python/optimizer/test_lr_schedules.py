"""Every learning-rate schedule yields PaddlePaddle's sequence (paddle.optimizer.lr),
through step(), step(epoch) and a state_dict round trip."""
import math

import numpy as np
import pytest

from skiff.optimizer import lr as skiff_lr

# name -> (args, kwargs) given to both skiff's and Paddle's class
SCHEDULES = {
    "NoamDecay": ((64, 5), {"learning_rate": 2.0}),
    "PiecewiseDecay": (([3, 6, 9], [0.1, 0.05, 0.01, 0.001]), {}),
    "NaturalExpDecay": ((0.5, 0.1), {}),
    "InverseTimeDecay": ((0.5, 0.2), {}),
    "PolynomialDecay": ((0.5, 7), {"end_lr": 0.01, "power": 2.0}),
    "PolynomialDecay_cycle": ((0.5, 4), {"end_lr": 0.01, "power": 1.5, "cycle": True}),
    "ExponentialDecay": ((0.5, 0.9), {}),
    "MultiStepDecay": ((0.5, [2, 5, 9]), {"gamma": 0.5}),
    "StepDecay": ((0.5, 3), {"gamma": 0.3}),
    "LambdaDecay": ((0.5, lambda e: 0.95 ** e), {}),
    "MultiplicativeDecay": ((0.5, lambda e: 0.9 if e % 2 else 0.99), {}),
    "CosineAnnealingDecay": ((0.5, 6), {"eta_min": 0.01}),
    "LinearLR": ((0.5, 6), {"start_factor": 0.25, "end_factor": 0.9}),
    "OneCycleLR": ((1.0, 20), {"phase_pct": 0.3}),
    "OneCycleLR_three": ((1.0, 20), {"three_phase": True, "anneal_strategy": "linear",
                                     "divide_factor": 10.0, "end_learning_rate": 0.001}),
    "CyclicLR": ((0.1, 1.0, 3), {"step_size_down": 5}),
    "CyclicLR_triangular2": ((0.1, 1.0, 2), {"mode": "triangular2"}),
    "CyclicLR_exp_range": ((0.1, 1.0, 2), {"mode": "exp_range", "exp_gamma": 0.9}),
    "CosineAnnealingWarmRestarts": ((0.5, 3), {"T_mult": 2, "eta_min": 0.05}),
}


def _pair(paddle, key):
    name = key.split("_")[0] if not key.startswith("CyclicLR") else "CyclicLR"
    if key.startswith("CosineAnnealingWarmRestarts"):
        name = "CosineAnnealingWarmRestarts"
    args, kwargs = SCHEDULES[key]
    return getattr(skiff_lr, name)(*args, **kwargs), getattr(paddle.optimizer.lr, name)(
        *args, **kwargs)


def _sequence(sched, steps):
    values = []
    for _ in range(steps):
        values.append(sched())
        sched.step()
    return values


@pytest.mark.parametrize("key", sorted(SCHEDULES))
def test_sequence_matches_paddle(paddle, key):
    ours, ref = _pair(paddle, key)
    steps = 20 if "OneCycle" in key else 25
    np.testing.assert_allclose(_sequence(ours, steps), _sequence(ref, steps), rtol=1e-12,
                               atol=1e-15)
    assert ours.last_epoch == ref.last_epoch


@pytest.mark.parametrize("key", ["CosineAnnealingDecay", "StepDecay", "PolynomialDecay",
                                 "CosineAnnealingWarmRestarts", "NoamDecay"])
def test_step_to_epoch_matches_paddle(paddle, key):
    ours, ref = _pair(paddle, key)
    for epoch in [4, 2, 11, 0, 7, 30]:
        ours.step(epoch)
        ref.step(epoch)
        assert ours() == pytest.approx(ref(), rel=1e-12, abs=1e-15), epoch
        assert ours.last_epoch == ref.last_epoch


@pytest.mark.parametrize("inner", [None, "cosine", "step"])
def test_linear_warmup_matches_paddle(paddle, inner):
    def make(mod):
        wrapped = {None: 0.4,
                   "cosine": lambda: mod.CosineAnnealingDecay(0.4, T_max=5, eta_min=0.02),
                   "step": lambda: mod.StepDecay(0.4, step_size=2, gamma=0.5)}[inner]
        wrapped = wrapped() if callable(wrapped) else wrapped
        return mod.LinearWarmup(wrapped, warmup_steps=4, start_lr=0.0, end_lr=0.4)
    ours, ref = make(skiff_lr), make(paddle.optimizer.lr)
    np.testing.assert_allclose(_sequence(ours, 15), _sequence(ref, 15), rtol=1e-12)
    if inner is not None:
        assert "LinearWarmup_LR" in ours.state_dict()


@pytest.mark.parametrize("kwargs", [{}, {"mode": "max", "threshold_mode": "abs",
                                         "threshold": 0.05},
                                    {"patience": 1, "cooldown": 2, "factor": 0.5,
                                     "min_lr": 0.02}])
def test_reduce_on_plateau_matches_paddle(paddle, kwargs):
    kwargs = dict({"patience": 2}, **kwargs)
    ours = skiff_lr.ReduceOnPlateau(0.5, **kwargs)
    ref = paddle.optimizer.lr.ReduceOnPlateau(0.5, **kwargs)
    metrics = [1.0, 0.9, 0.95, 0.97, 0.91, 0.92, 0.93, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99, 1.0,
               1.2, 1.1, 1.1, 1.1]
    for m in metrics:
        ours.step(m)
        ref.step(m)
        assert ours() == pytest.approx(ref(), rel=1e-12)
    assert ours.state_dict() == pytest.approx(ref.state_dict())


def test_reduce_on_plateau_takes_one_element_tensors():
    import skiff
    sched = skiff_lr.ReduceOnPlateau(0.5, patience=0)
    sched.step(skiff.to_tensor([1.0]))
    sched.step(np.array(2.0))
    assert sched() == pytest.approx(0.05)
    with pytest.raises(ValueError, match="one value"):
        sched.step(skiff.to_tensor([1.0, 2.0]))


@pytest.mark.parametrize("key", ["CosineAnnealingDecay", "MultiStepDecay", "NoamDecay",
                                 "CosineAnnealingWarmRestarts"])
def test_state_dict_round_trip_continues(paddle, key):
    first, _ = _pair(paddle, key)
    for _ in range(7):
        first.step()
    state = first.state_dict()
    assert set(state) >= {"last_epoch", "last_lr"}
    second, _ = _pair(paddle, key)
    second.set_state_dict(state)
    if key == "CosineAnnealingWarmRestarts":  # its cycle position is not in Paddle's state
        second.step(first.last_epoch)
        first.step(first.last_epoch)
    assert _sequence(second, 6) == pytest.approx(_sequence(first, 6), rel=1e-12)


def test_invalid_arguments_raise():
    with pytest.raises(ValueError):
        skiff_lr.StepDecay(0.1, step_size=0)
    with pytest.raises(ValueError):
        skiff_lr.MultiStepDecay(0.1, [3, 2])
    with pytest.raises(ValueError):
        skiff_lr.PiecewiseDecay([1, 2], [0.1, 0.2])
    with pytest.raises(TypeError):
        skiff_lr.LambdaDecay(0.1, 3)
    with pytest.raises(TypeError):
        skiff_lr.ExponentialDecay("0.1", 0.5)
    with pytest.raises(RuntimeError, match="last_lr"):
        skiff_lr.StepDecay(0.1, 2).set_state_dict({"last_epoch": 3})


def test_custom_subclass_uses_base_step():
    class Halving(skiff_lr.LRScheduler):
        def get_lr(self):
            return self.base_lr * 0.5 ** self.last_epoch
    sched = Halving(1.0)
    assert _sequence(sched, 4) == [1.0, 0.5, 0.25, 0.125]
    assert math.isclose(sched.state_dict()["last_lr"], 0.0625)
