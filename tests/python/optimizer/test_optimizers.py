"""Each optimizer's trajectory over several steps equals PyTorch's (or PaddlePaddle's
where Paddle's update rule differs from PyTorch's): same start, same loss, float64."""
import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod

from optim_common import assert_same, initial_values, run_paddle, run_skiff, run_torch

torch = pytest.importorskip("torch")

CASES = {
    "sgd": (lambda ps: opt_mod.SGD(0.1, parameters=ps),
            lambda ps: torch.optim.SGD(ps, lr=0.1)),
    "sgd_l2": (lambda ps: opt_mod.SGD(0.1, parameters=ps, weight_decay=0.05),
               lambda ps: torch.optim.SGD(ps, lr=0.1, weight_decay=0.05)),
    "momentum": (lambda ps: opt_mod.Momentum(0.05, momentum=0.9, parameters=ps),
                 lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9)),
    "nesterov": (lambda ps: opt_mod.Momentum(0.05, 0.8, ps, use_nesterov=True),
                 lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, nesterov=True)),
    "momentum_l2": (lambda ps: opt_mod.Momentum(0.05, 0.9, ps, weight_decay=0.1),
                    lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.1)),
    "adam": (lambda ps: opt_mod.Adam(0.02, parameters=ps),
             lambda ps: torch.optim.Adam(ps, lr=0.02)),
    "adam_betas": (lambda ps: opt_mod.Adam(0.02, beta1=0.8, beta2=0.95, epsilon=1e-6,
                                           parameters=ps),
                   lambda ps: torch.optim.Adam(ps, lr=0.02, betas=(0.8, 0.95), eps=1e-6)),
    "adam_l2": (lambda ps: opt_mod.Adam(0.02, parameters=ps, weight_decay=0.1),
                lambda ps: torch.optim.Adam(ps, lr=0.02, weight_decay=0.1)),
    "adamw": (lambda ps: opt_mod.AdamW(0.02, parameters=ps, weight_decay=0.2),
              lambda ps: torch.optim.AdamW(ps, lr=0.02, weight_decay=0.2)),
    # beta2 0.5: the second moment falls below its running maximum within a few steps
    "adam_amsgrad": (lambda ps: opt_mod.Adam(0.02, beta2=0.5, parameters=ps, amsgrad=True),
                     lambda ps: torch.optim.Adam(ps, lr=0.02, betas=(0.9, 0.5), amsgrad=True)),
    "adamw_amsgrad": (lambda ps: opt_mod.AdamW(0.02, beta2=0.5, parameters=ps,
                                               weight_decay=0.2, amsgrad=True),
                      lambda ps: torch.optim.AdamW(ps, lr=0.02, betas=(0.9, 0.5),
                                                   weight_decay=0.2, amsgrad=True)),
    "adagrad": (lambda ps: opt_mod.Adagrad(0.1, epsilon=1e-10, parameters=ps),
                lambda ps: torch.optim.Adagrad(ps, lr=0.1, eps=1e-10)),
    "adagrad_init": (lambda ps: opt_mod.Adagrad(0.1, epsilon=1e-10, parameters=ps,
                                                initial_accumulator_value=0.3),
                     lambda ps: torch.optim.Adagrad(ps, lr=0.1, eps=1e-10,
                                                    initial_accumulator_value=0.3)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_trajectory_matches_torch(case):
    make_skiff, make_torch = CASES[case]
    got, _ = run_skiff(make_skiff, steps=6)
    assert_same(got, run_torch(make_torch, steps=6))


def test_amsgrad_changes_the_trajectory():
    plain, _ = run_skiff(lambda ps: opt_mod.Adam(0.02, beta2=0.5, parameters=ps))
    ams, _ = run_skiff(lambda ps: opt_mod.Adam(0.02, beta2=0.5, parameters=ps, amsgrad=True))
    assert not all(np.allclose(a, b) for a, b in zip(plain, ams))


def test_trajectory_in_float32_matches_torch():
    values = initial_values(dtype="float32")
    got, _ = run_skiff(lambda ps: opt_mod.Adam(0.02, parameters=ps), values=values)
    assert got[0].dtype == np.float32
    want = run_torch(lambda ps: torch.optim.Adam(ps, lr=0.02), values=values)
    assert_same(got, want, rtol=2e-5, atol=1e-6)


# Paddle keeps float attributes (rho, momentum, epsilon) and the learning rate in float32:
# the values below are exact in float32, so float64 trajectories agree to rounding.
@pytest.mark.parametrize("kwargs", [{"epsilon": 2.0 ** -20, "rho": 0.96875},
                                    {"momentum": 0.75, "rho": 0.9375, "epsilon": 2.0 ** -16},
                                    {"centered": True, "rho": 0.9375, "epsilon": 2.0 ** -20},
                                    {"centered": True, "momentum": 0.5, "rho": 0.875,
                                     "epsilon": 2.0 ** -12}])
def test_rmsprop_matches_paddle(paddle, kwargs):
    # Paddle's RMSProp puts epsilon inside the root and lr inside the momentum: not torch's.
    lr = 2.0 ** -6
    got, _ = run_skiff(lambda ps: opt_mod.RMSProp(lr, parameters=ps, **kwargs))
    want = run_paddle(paddle, lambda ps: paddle.optimizer.RMSProp(lr, parameters=ps, **kwargs))
    assert_same(got, want)


@pytest.mark.parametrize("name,kwargs", [("Momentum", {"momentum": 0.75, "use_nesterov": True}),
                                         ("Momentum", {"momentum": 0.5, "weight_decay": 0.125}),
                                         ("Adam", {"beta1": 0.875}),
                                         ("AdamW", {"weight_decay": 0.125}),
                                         ("Adagrad", {"epsilon": 2.0 ** -20})])
def test_matches_paddle(paddle, name, kwargs):
    lr = 2.0 ** -5
    got, _ = run_skiff(lambda ps: getattr(opt_mod, name)(lr, parameters=ps, **kwargs))
    want = run_paddle(paddle, lambda ps: getattr(paddle.optimizer, name)(
        lr, parameters=ps, **kwargs))
    assert_same(got, want)


def test_scheduler_drives_the_rate(paddle):
    sched = opt_mod.lr.StepDecay(0.05, step_size=2, gamma=0.5)
    got, _ = run_skiff(lambda ps: opt_mod.Adam(sched, parameters=ps), steps=6, scheduler=sched)
    ref = paddle.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5)
    want = run_paddle(paddle, lambda ps: paddle.optimizer.Adam(ref, parameters=ps), steps=6,
                      scheduler=ref)
    assert_same(got, want, rtol=1e-9)


def test_adamw_apply_decay_param_fun_and_lr_ratio():
    decayed = []

    def decay_fun(name):
        decayed.append(name)
        return name.endswith("0")

    params_holder = {}

    def make(ps):
        ps[0].name, ps[1].name = "w_0", "b_1"
        params_holder["ps"] = ps
        return opt_mod.AdamW(0.02, parameters=ps, weight_decay=0.3,
                             apply_decay_param_fun=decay_fun,
                             lr_ratio=lambda p: 0.5 if p.name == "b_1" else 1.0)
    got, _ = run_skiff(make)
    assert "w_0" in decayed and "b_1" in decayed
    want = run_torch(lambda ps: torch.optim.AdamW(
        [{"params": [ps[0]], "weight_decay": 0.3},
         {"params": [ps[1]], "weight_decay": 0.0, "lr": 0.01}], lr=0.02))
    assert_same(got, want)
