"""Rprop and ASGD: float64 trajectories equal PyTorch's Rprop and PaddlePaddle's Rprop and
ASGD (torch's ASGD is another algorithm), state names and shapes as Paddle's, Paddle's
state continuing in skiff, static minimize as eager, and constructor errors."""
import re

import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod

from optim_common import SHAPES, assert_same, initial_values, paddle_params, run_paddle, \
    run_skiff, run_torch, skiff_loss, skiff_params, step_data
from test_optimizer_static import check_float32_follows_float64, check_static_matches_eager, \
    static  # noqa: F401 (a fixture)

torch = pytest.importorskip("torch")

TORCH_CASES = {
    "rprop": (lambda ps: opt_mod.Rprop(0.01, parameters=ps),
              lambda ps: torch.optim.Rprop(ps, lr=0.01, step_sizes=(1e-5, 50))),
    "rprop_tight_range": (
        lambda ps: opt_mod.Rprop(0.05, learning_rate_range=(0.02, 0.08), etas=(0.25, 1.5),
                                 parameters=ps),
        lambda ps: torch.optim.Rprop(ps, lr=0.05, etas=(0.25, 1.5), step_sizes=(0.02, 0.08))),
}


@pytest.mark.parametrize("case", sorted(TORCH_CASES))
def test_rprop_trajectory_matches_torch(case):
    make_skiff, make_torch = TORCH_CASES[case]
    got, _ = run_skiff(make_skiff, steps=12)
    assert_same(got, run_torch(make_torch, steps=12), rtol=1e-12, atol=1e-14)


def test_rprop_formula_by_hand():
    """Steps grow by etas[1] while the gradient keeps its sign; a flip shrinks the step and
    skips the move."""
    p = skiff.nn.Parameter(skiff.to_tensor(np.array([1.0, -1.0])))
    opt = opt_mod.Rprop(0.1, parameters=[p], etas=(0.5, 2.0))
    seen = []
    for grad in ([1.0, -1.0], [1.0, 1.0], [2.0, 3.0]):
        (p * skiff.to_tensor(np.array(grad))).sum().backward()
        opt.step()
        opt.clear_grad()
        seen.append(p.numpy().copy())
    # step sizes: [0.1, 0.1] -> [0.2, 0.05] (flip: no move) -> [0.4, 0.05]
    np.testing.assert_allclose(seen[0], [0.9, -0.9])
    np.testing.assert_allclose(seen[1], [0.7, -0.9])
    np.testing.assert_allclose(seen[2], [0.3, -0.95])


PADDLE_CASES = {
    "rprop": lambda m, ps: m.optimizer.Rprop(0.0625, parameters=ps),
    "rprop_range": lambda m, ps: m.optimizer.Rprop(0.0625, (0.03125, 0.125), ps,
                                                   etas=(0.25, 1.5)),
    "asgd": lambda m, ps: m.optimizer.ASGD(0.0625, parameters=ps),
    "asgd_batches": lambda m, ps: m.optimizer.ASGD(0.0625, batch_num=3, parameters=ps),
    "asgd_decay_groups": lambda m, ps: m.optimizer.ASGD(
        0.0625, 2, [{"params": ps[:1]}, {"params": ps[1:], "learning_rate": 0.5}],
        weight_decay=0.125),
    "asgd_clip": lambda m, ps: m.optimizer.ASGD(0.0625, 4, ps,
                                                grad_clip=m.nn.ClipGradByGlobalNorm(0.5)),
}


@pytest.mark.parametrize("case", sorted(PADDLE_CASES))
def test_trajectory_matches_paddle(paddle, case):
    make = PADDLE_CASES[case]
    got, _ = run_skiff(lambda ps: make(skiff, ps), steps=7)
    assert_same(got, run_paddle(paddle, lambda ps: make(paddle, ps), steps=7))


def test_asgd_averages_the_last_batch_num_gradients():
    params, stored = initial_values(), [[np.zeros(s) for s in SHAPES] for _ in range(3)]
    for step in range(7):
        grads = [3 * c * p * p + d for p, (c, d) in zip(params, step_data(step))]
        stored[step % 3] = grads
        seen = min(step + 1, 3)
        params = [p - 0.0625 * sum(s[i] for s in stored) / seen for i, p in enumerate(params)]
    got, _ = run_skiff(lambda ps: opt_mod.ASGD(0.0625, batch_num=3, parameters=ps), steps=7)
    assert_same(got, params)


MAKERS = {
    "Rprop": lambda m, ps: m.optimizer.Rprop(0.0625, parameters=ps),
    "ASGD": lambda m, ps: m.optimizer.ASGD(0.0625, batch_num=3, parameters=ps),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_state_names_and_shapes_follow_paddle(paddle, name):
    def state(mod):
        layer = mod.nn.Linear(3, 2)
        opt = MAKERS[name](mod, layer.parameters())
        (layer(mod.ones([1, 3])) * 1.0).sum().backward()
        opt.step()
        return {re.sub(r"linear_\d+", "linear", re.sub(r"_\d+$", "", k)):
                (list(v.shape), str(v.numpy().dtype)) for k, v in opt.state_dict().items()}
    assert state(skiff) == state(paddle)


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_paddle_state_continues_in_skiff(paddle, name):
    """Four steps in Paddle, its state_dict loaded into skiff, three more steps in both."""
    make = MAKERS[name]
    pd_params = paddle_params(paddle, initial_values())
    pd_opt = make(paddle, pd_params)

    def paddle_steps(first, count):
        for step in range(first, first + count):
            loss = sum((p * p * p * paddle.to_tensor(c)).sum() + (p * paddle.to_tensor(d)).sum()
                       for p, (c, d) in zip(pd_params, step_data(step)))
            loss.backward()
            pd_opt.step()
            pd_opt.clear_grad()

    paddle_steps(0, 4)
    state = {k: v.numpy().copy() for k, v in pd_opt.state_dict().items()}
    params = skiff_params([p.numpy().copy() for p in pd_params])
    for p, q in zip(params, pd_params):
        p.name = q.name
    opt = make(skiff, params)
    opt.set_state_dict(state)
    for step in range(4, 7):
        skiff_loss(params, step).backward()
        opt.step()
        opt.clear_grad()
    paddle_steps(4, 3)
    assert_same([p.numpy() for p in params], [p.numpy() for p in pd_params])


STATIC_CASES = {
    "rprop": lambda s, ps: opt_mod.Rprop(0.0625, parameters=ps, etas=(0.5, 1.5)),
    "asgd": lambda s, ps: opt_mod.ASGD(s, batch_num=2, parameters=ps, weight_decay=0.25),
}


@pytest.mark.parametrize("case", sorted(STATIC_CASES))
def test_static_minimize_matches_eager(static, case):  # noqa: F811 (the fixture)
    check_static_matches_eager(static, STATIC_CASES[case])


def test_float32_parameters_follow_the_float64_trajectory():
    check_float32_follows_float64(lambda name, ps: MAKERS[name](skiff, ps), sorted(MAKERS))


def test_constructor_errors():
    ps = skiff_params(initial_values())
    with pytest.raises(ValueError, match="learning_rate_range"):
        opt_mod.Rprop(0.1, learning_rate_range=(0.2, 1.0), parameters=ps)
    with pytest.raises(ValueError, match="etas"):
        opt_mod.Rprop(0.1, etas=(0.5, 0.9), parameters=ps)
    with pytest.raises(ValueError, match="etas"):
        opt_mod.Rprop(0.1, etas=0.5, parameters=ps)
    with pytest.raises(TypeError, match="learning_rate"):
        opt_mod.Rprop("0.1", parameters=ps)
    with pytest.raises(ValueError, match="batch_num"):
        opt_mod.ASGD(0.1, batch_num=0, parameters=ps)
    with pytest.raises(AttributeError, match="parameters"):
        opt_mod.ASGD(0.1)
