"""Optimizers and the amp scalers check their settings, naming the class and the argument;
parameters must be a list of Tensors or of param-group dicts."""
import numpy as np
import pytest

import skiff
from skiff.framework.arguments import ArgumentError, ArgumentTypeError


def _raises(error, fn, *words):
    pattern = "^" + fn + r":" + "".join(f"(?=.*{w})" for w in words)
    return pytest.raises(error, match=pattern)


def test_optimizer_settings():
    params = skiff.nn.Linear(2, 2).parameters()
    with _raises(ArgumentTypeError, "Adam", "epsilon", "float32 Tensor of shape"):
        skiff.optimizer.Adam(epsilon=skiff.zeros([0, 3]), parameters=params)
    with _raises(ArgumentTypeError, "SGD", "parameters", "int"):
        skiff.optimizer.SGD(parameters=4)
    with _raises(ArgumentTypeError, "Momentum", "parameters", "str"):
        skiff.optimizer.Momentum(parameters="mean")
    with _raises(ArgumentTypeError, "Adadelta", r"parameters\[0\]", "int"):
        skiff.optimizer.Adadelta(parameters=[1, 2])
    with _raises(ArgumentTypeError, "RAdam", "parameters", "ndarray"):
        skiff.optimizer.RAdam(parameters=np.zeros((2**31, 0)))
    with _raises(ArgumentTypeError, "Lamb", "beta1", "str"):
        skiff.optimizer.Lamb(beta1="a", parameters=params)
    opt = skiff.optimizer.Adam(learning_rate=skiff.to_tensor(0.5), parameters=params)
    assert opt.get_lr() == 0.5


def test_scaler_settings():
    with _raises(ArgumentError, "GradScaler", "incr_ratio", "> 1.0"):
        skiff.amp.GradScaler(incr_ratio=0.5)
    with _raises(ArgumentTypeError, "GradScaler", "decr_ratio", "tuple"):
        skiff.amp.AmpScaler(decr_ratio=([1e+308],))
    with _raises(ArgumentTypeError, "GradScaler", "incr_every_n_steps", "DType"):
        skiff.amp.GradScaler(incr_every_n_steps=skiff.float32)
    with _raises(ArgumentTypeError, "GradScaler", "optimizer", "Tensor"):
        skiff.amp.GradScaler().unscale_(skiff.ones([2]))
    with _raises(ArgumentError, "GradScaler", "incr_every_n_steps"):
        skiff.amp.GradScaler().set_incr_every_n_steps(0)
