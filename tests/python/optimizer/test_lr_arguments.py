"""The learning-rate schedules check their settings when they are made and the epochs given
to step(): wrong kinds are ArgumentTypeErrors, values that would divide by zero or never
end are ArgumentErrors, each naming the schedule and the argument."""
import numpy as np
import pytest

from skiff.framework.arguments import ArgumentError, ArgumentTypeError
from skiff.optimizer import lr


def _raises(error, fn, *words):
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


def test_values_that_would_divide_by_zero_are_refused():
    with _raises(ArgumentError, "InverseTimeDecay", "last_epoch", "-2"):
        lr.InverseTimeDecay(1e-05, 1.0, -2)
    with _raises(ArgumentError, "InverseTimeDecay", "gamma"):
        lr.InverseTimeDecay(0.1, -1.0)
    with _raises(ArgumentError, "NoamDecay", "warmup_steps", "> 0"):
        lr.NoamDecay(8, 0, 0.0)
    with _raises(ArgumentError, "NoamDecay", "d_model"):
        lr.NoamDecay(0, 3)
    with _raises(ArgumentError, "OneCycleLR", "divide_factor"):
        lr.OneCycleLR(0.1, 10, divide_factor=0)
    assert lr.OneCycleLR(0.1, 1, phase_pct=1.0)() == pytest.approx(0.1)


def test_settings_of_the_wrong_kind():
    with _raises(ArgumentTypeError, "LRScheduler", "last_epoch", "ndarray"):
        lr.LRScheduler(last_epoch=np.ones(3))
    with _raises(ArgumentTypeError, "LRScheduler", "last_epoch", "str"):
        lr.LRScheduler(0.1, "mean")
    with _raises(ArgumentTypeError, "LinearLR", "verbose"):
        lr.LinearLR(1e-05, 8, verbose=np.ones((1, 1), "int64"))
    with _raises(ArgumentTypeError, "PiecewiseDecay", "boundaries"):
        lr.PiecewiseDecay(2, -2**63)
    with _raises(ArgumentTypeError, "LinearLR", "start_factor", "list"):
        lr.LinearLR(1e-05, 1, [[-1]], 0.5)
    with _raises(ArgumentTypeError, "ReduceOnPlateau", "mode", "NoneType"):
        lr.ReduceOnPlateau(None, mode=None)
    with _raises(ArgumentError, "ReduceOnPlateau", "mode", "'min', 'max'"):
        lr.ReduceOnPlateau(0.1, mode="middle")
    with _raises(ArgumentTypeError, "CosineAnnealingWarmRestarts", "last_epoch"):
        lr.CosineAnnealingWarmRestarts(7, 1, last_epoch="int16")
    with _raises(ArgumentTypeError, "CyclicLR", "scale_fn"):
        lr.CyclicLR(0.1, 0.2, 5, scale_fn=3)
    with _raises(ArgumentTypeError, "LinearWarmup", "learning_rate"):
        lr.LinearWarmup("a", 3, 0.0, 0.1)


def test_epochs_given_to_step():
    with _raises(ArgumentTypeError, "CosineAnnealingDecay", "epoch", "list"):
        lr.CosineAnnealingDecay(0.1, 8, 1).step([])
    with _raises(ArgumentError, "StepDecay", "epoch", ">= 0"):
        lr.StepDecay(0.1, 3).step(-5)
    with _raises(ArgumentTypeError, "ReduceOnPlateau", "epoch"):
        lr.ReduceOnPlateau(0.1).step(1.0, epoch="a")


def test_valid_schedules_are_unchanged():
    s = lr.StepDecay(0.1, 3, 0.5)
    s.step(5)
    assert s() == pytest.approx(0.05)
    assert lr.PiecewiseDecay([3, 6], [0.1, 0.01, 0.001])() == pytest.approx(0.1)
    assert lr.ReduceOnPlateau(0.1, "MAX").mode == "max"
    assert lr.CyclicLR(0.1, 0.2, 5)() == pytest.approx(0.1)
    assert lr.PolynomialDecay(0.1, np.int64(10)).decay_steps == 10
