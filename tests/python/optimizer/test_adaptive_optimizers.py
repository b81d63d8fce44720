"""Adamax, Adadelta, NAdam, RAdam and Lamb: float64 trajectories equal PyTorch's (Lamb's,
and Adamax's with its epsilon, PaddlePaddle's), with weight decay, parameter groups,
gradient clipping and learning-rate schedules; state_dict names and shapes as Paddle's,
round trips and Paddle's own state continuing identically; static minimize as eager."""
import re

import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod

from optim_common import SHAPES, assert_same, initial_values, paddle_params, run_paddle, run_skiff, \
    run_torch, skiff_loss, skiff_params, step_data
from test_optimizer_static import check_float32_follows_float64, check_static_matches_eager, \
    static  # noqa: F401 (a fixture)

torch = pytest.importorskip("torch")

# Betas, epsilons and decays PaddlePaddle's float32 attributes hold exactly, so its
# float64 trajectories compare tightly.
B1, B2, EPS = 0.875, 0.9921875, 2.0 ** -20

TORCH_CASES = {
    # torch adds epsilon to |g| where Paddle adds it to the decayed norm: equal at 0
    "adamax": (lambda ps: opt_mod.Adamax(0.05, epsilon=0.0, parameters=ps),
               lambda ps: torch.optim.Adamax(ps, lr=0.05, eps=0.0)),
    "adamax_l2": (lambda ps: opt_mod.Adamax(0.05, 0.8, 0.95, 0.0, ps, weight_decay=0.1),
                  lambda ps: torch.optim.Adamax(ps, lr=0.05, betas=(0.8, 0.95), eps=0.0,
                                                weight_decay=0.1)),
    "adadelta": (lambda ps: opt_mod.Adadelta(0.5, epsilon=1e-6, rho=0.9, parameters=ps),
                 lambda ps: torch.optim.Adadelta(ps, lr=0.5, rho=0.9, eps=1e-6)),
    "adadelta_l2": (lambda ps: opt_mod.Adadelta(1.0, 1e-3, 0.5, ps, weight_decay=0.2),
                    lambda ps: torch.optim.Adadelta(ps, lr=1.0, rho=0.5, eps=1e-3,
                                                    weight_decay=0.2)),
    "nadam": (lambda ps: opt_mod.NAdam(0.02, parameters=ps),
              lambda ps: torch.optim.NAdam(ps, lr=0.02)),
    "nadam_decay": (lambda ps: opt_mod.NAdam(0.02, 0.8, 0.95, 1e-6, momentum_decay=0.3,
                                             parameters=ps, weight_decay=0.1),
                    lambda ps: torch.optim.NAdam(ps, lr=0.02, betas=(0.8, 0.95), eps=1e-6,
                                                 momentum_decay=0.3, weight_decay=0.1)),
    "radam": (lambda ps: opt_mod.RAdam(0.02, parameters=ps),
              lambda ps: torch.optim.RAdam(ps, lr=0.02)),
    # beta2 0.99: rectified from the sixth step on
    "radam_rectified": (lambda ps: opt_mod.RAdam(0.02, 0.8, 0.99, 1e-6, ps, weight_decay=0.1),
                        lambda ps: torch.optim.RAdam(ps, lr=0.02, betas=(0.8, 0.99), eps=1e-6,
                                                     weight_decay=0.1)),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_trajectory_matches_torch(case):
    make_skiff, make_torch = TORCH_CASES[case]
    got, _ = run_skiff(make_skiff, steps=9)
    assert_same(got, _run_torch64(make_torch, steps=9))


def _run_torch64(make_opt, **kwargs):
    """run_torch with float64 as torch's default dtype: NAdam keeps its momentum product in
    the default dtype (float32 otherwise, where Paddle keeps the parameter's)."""
    old = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        return run_torch(make_opt, **kwargs)
    finally:
        torch.set_default_dtype(old)


def test_radam_takes_plain_momentum_steps_until_rectified():
    """With beta2 = 0.99 the first five steps are lr * m / (1 - beta1^t), no second moment."""
    params, m = initial_values(), [np.zeros(s) for s in SHAPES]
    for step in range(5):
        grads = [3 * c * p * p + d for p, (c, d) in zip(params, step_data(step))]
        m = [0.8 * mi + 0.2 * g for mi, g in zip(m, grads)]
        params = [p - 0.02 * mi / (1 - 0.8 ** (step + 1)) for p, mi in zip(params, m)]
    got, _ = run_skiff(lambda ps: opt_mod.RAdam(0.02, 0.8, 0.99, 1e-6, ps), steps=5)
    assert_same(got, params)


PADDLE_CASES = {
    "adamax_eps": lambda m, ps: m.optimizer.Adamax(0.05, B1, B2, EPS, parameters=ps),
    "lamb": lambda m, ps: m.optimizer.Lamb(0.05, 0.015625, B1, B2, EPS, parameters=ps),
    "lamb_no_decay": lambda m, ps: m.optimizer.Lamb(0.05, 0.0, B1, B2, EPS, parameters=ps),
    "lamb_always_adapt": lambda m, ps: m.optimizer.Lamb(0.05, 0.0, B1, B2, EPS, parameters=ps,
                                                        always_adapt=True),
    "lamb_decay_excluded": lambda m, ps: m.optimizer.Lamb(
        0.05, 0.25, B1, B2, EPS, parameters=ps,
        exclude_from_weight_decay_fn=lambda p: len(p.shape) == 1),
    "lamb_groups": lambda m, ps: m.optimizer.Lamb(
        0.05, 0.125, B1, B2, EPS, parameters=[
            {"params": ps[:1]},
            {"params": ps[1:], "learning_rate": 0.5, "lamb_weight_decay": 0.0, "beta1": 0.75}]),
    "lamb_clip": lambda m, ps: m.optimizer.Lamb(0.05, 0.25, B1, B2, EPS, parameters=ps,
                                                grad_clip=m.nn.ClipGradByGlobalNorm(0.5)),
}


@pytest.mark.parametrize("case", sorted(PADDLE_CASES))
def test_trajectory_matches_paddle(paddle, case):
    make = PADDLE_CASES[case]
    got, _ = run_skiff(lambda ps: make(skiff, ps), steps=6)
    assert_same(got, run_paddle(paddle, lambda ps: make(paddle, ps), steps=6))


@pytest.mark.parametrize("name", ["Adamax", "Adadelta", "NAdam", "RAdam"])
def test_scheduler_and_groups_match_paddle(paddle, name):
    kwargs = {"Adadelta": {"epsilon": EPS, "rho": B1}, "Adamax": {"beta1": B1, "beta2": B2,
                                                                "epsilon": EPS}}.get(
        name, {"beta1": B1, "beta2": B2, "epsilon": EPS})

    def make(mod, sched_box):
        def build(ps):
            sched_box.append(mod.optimizer.lr.StepDecay(0.05, step_size=2, gamma=0.5))
            groups = [{"params": ps[:1]}, {"params": ps[1:], "learning_rate": 0.5}]
            return getattr(mod.optimizer, name)(sched_box[0], parameters=groups,
                                                weight_decay=0.125, **kwargs)
        return build

    ours, theirs = [], []
    got, _ = run_skiff(make(skiff, ours), steps=6, scheduler=_Deferred(ours))
    want = run_paddle(paddle, make(paddle, theirs), steps=6, scheduler=_Deferred(theirs))
    assert_same(got, want)


class _Deferred:
    """Steps the scheduler the optimizer factory created (it exists only once built)."""

    def __init__(self, box):
        self._box = box

    def step(self):
        self._box[0].step()


def test_nadam_with_clipping_and_groups_matches_torch():
    def ours(ps):
        return opt_mod.NAdam(0.02, parameters=[{"params": ps[:1]},
                                               {"params": ps[1:], "learning_rate": 0.5,
                                                "beta1": 0.7}],
                             grad_clip=opt_mod.ClipGradByGlobalNorm(1.0))

    def theirs(ps):
        return torch.optim.NAdam([{"params": ps[:1]},
                                  {"params": ps[1:], "lr": 0.01, "betas": (0.7, 0.999)}],
                                 lr=0.02)
    got, _ = run_skiff(ours, steps=6)
    def clip(group):  # Paddle's rule: g * 1 / max(norm, 1) (torch adds 1e-6 to the norm)
        norm = torch.sqrt(sum((p.grad * p.grad).sum() for p in group))
        for p in group:
            p.grad.mul_(1.0 / torch.clamp(norm, min=1.0))

    # Paddle clips each parameter group by its own global norm
    want = _run_torch64(theirs, steps=6, per_step=lambda ps: [clip(ps[:1]), clip(ps[1:])])
    assert_same(got, want)


MAKERS = {
    "Adamax": lambda m, ps: m.optimizer.Adamax(0.05, parameters=ps),
    "Adadelta": lambda m, ps: m.optimizer.Adadelta(0.5, parameters=ps),
    "NAdam": lambda m, ps: m.optimizer.NAdam(0.02, parameters=ps),
    "RAdam": lambda m, ps: m.optimizer.RAdam(0.02, parameters=ps),
    "Lamb": lambda m, ps: m.optimizer.Lamb(0.02, parameters=ps),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_names_and_shapes_follow_paddle(paddle, name):
    def state(mod):
        layer = mod.nn.Linear(3, 2)
        opt = MAKERS[name](mod, layer.parameters())
        (layer(mod.ones([1, 3])) * 1.0).sum().backward()
        opt.step()
        return {re.sub(r"linear_\d+", "linear", re.sub(r"_\d+$", "", k)): list(v.shape)
                for k, v in opt.state_dict().items()}
    assert state(skiff) == state(paddle)


def _named_params(values):
    params = skiff_params(values)
    for i, p in enumerate(params):
        p.name = f"fc_{i}.w_0"
    return params


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_dict_round_trip_continues_identically(name):
    def train(params, opt, first, steps):
        for step in range(first, first + steps):
            skiff_loss(params, step).backward()
            opt.step()
            opt.clear_grad()

    params = _named_params(initial_values())
    train(params, MAKERS[name](skiff, params), 0, 6)
    straight = [p.numpy().copy() for p in params]

    params = _named_params(initial_values())
    opt = MAKERS[name](skiff, params)
    train(params, opt, 0, 3)
    state = {k: v.numpy().copy() for k, v in opt.state_dict().items()}
    params = _named_params([p.numpy().copy() for p in params])
    opt = MAKERS[name](skiff, params)
    opt.set_state_dict(state)
    train(params, opt, 3, 3)
    assert_same([p.numpy() for p in params], straight, rtol=1e-14, atol=1e-15)


@pytest.mark.parametrize("name", ["Adamax", "NAdam", "RAdam", "Lamb"])
def test_paddle_state_continues_in_skiff(paddle, name):
    """Three steps in Paddle, its state_dict loaded into skiff, three more steps in both."""
    kwargs = {"beta1": B1, "beta2": B2, "epsilon": EPS}
    make = {"Adamax": lambda m, ps: m.optimizer.Adamax(0.05, parameters=ps, **kwargs),
            "NAdam": lambda m, ps: m.optimizer.NAdam(0.02, parameters=ps, **kwargs),
            "RAdam": lambda m, ps: m.optimizer.RAdam(0.02, parameters=ps, **kwargs),
            "Lamb": lambda m, ps: m.optimizer.Lamb(0.02, parameters=ps, **kwargs)}[name]
    pd_params = paddle_params(paddle, initial_values())
    pd_opt = make(paddle, pd_params)

    def paddle_steps(first):
        for step in range(first, first + 3):
            loss = sum((p * p * p * paddle.to_tensor(c)).sum() + (p * paddle.to_tensor(d)).sum()
                       for p, (c, d) in zip(pd_params, step_data(step)))
            loss.backward()
            pd_opt.step()
            pd_opt.clear_grad()

    paddle_steps(0)
    state = {k: v.numpy().copy() for k, v in pd_opt.state_dict().items()}
    params = skiff_params([p.numpy().copy() for p in pd_params])
    for p, q in zip(params, pd_params):
        p.name = q.name
    opt = make(skiff, params)
    opt.set_state_dict(state)
    for step in range(3, 6):
        skiff_loss(params, step).backward()
        opt.step()
        opt.clear_grad()
    paddle_steps(3)
    assert_same([p.numpy() for p in params], [p.numpy() for p in pd_params])


STATIC_CASES = {
    "adamax": lambda s, ps: opt_mod.Adamax(0.0625, parameters=ps, weight_decay=0.25),
    "adadelta": lambda s, ps: opt_mod.Adadelta(s, parameters=ps),
    "nadam": lambda s, ps: opt_mod.NAdam(0.03125, parameters=ps),
    "radam": lambda s, ps: opt_mod.RAdam(s, beta2=0.99, parameters=ps),
    "lamb": lambda s, ps: opt_mod.Lamb(0.0625, parameters=ps,
                                       grad_clip=opt_mod.ClipGradByGlobalNorm(0.5)),
}


@pytest.mark.parametrize("case", sorted(STATIC_CASES))
def test_static_minimize_matches_eager(static, case):  # noqa: F811 (the fixture)
    check_static_matches_eager(static, STATIC_CASES[case])


def test_float32_parameters_follow_the_float64_trajectory():
    check_float32_follows_float64(lambda name, ps: MAKERS[name](skiff, ps), sorted(MAKERS))


def test_constructor_errors():
    ps = skiff_params(initial_values())
    with pytest.raises(ValueError, match="beta1"):
        opt_mod.Adamax(0.1, beta1=1.0, parameters=ps)
    with pytest.raises(ValueError, match="epsilon"):
        opt_mod.Adamax(0.1, epsilon=-1.0, parameters=ps)
    with pytest.raises(ValueError, match="rho"):
        opt_mod.Adadelta(0.1, rho=None, parameters=ps)
    with pytest.raises(ValueError, match="momentum_decay"):
        opt_mod.NAdam(0.1, momentum_decay=-0.1, parameters=ps)
    with pytest.raises(ValueError, match="beta2"):
        opt_mod.RAdam(0.1, beta2=1.5, parameters=ps)
    with pytest.raises(TypeError, match="exclude_from_weight_decay_fn"):
        opt_mod.Lamb(0.1, parameters=ps, exclude_from_weight_decay_fn=3)
    with pytest.raises(TypeError, match="beta1"):
        opt_mod.NAdam(0.1, beta1="0.9", parameters=ps)
    with pytest.raises(AttributeError, match="parameters"):
        opt_mod.RAdam(0.1)
