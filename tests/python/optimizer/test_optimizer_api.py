"""The Optimizer API: state_dict round trips continue identically, Paddle-style state
names, parameter groups and per-parameter learning-rate factors (vs PyTorch param
groups), skipped parameters, clear_grad, minimize, get_lr/set_lr and errors."""
import re

import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod

from optim_common import assert_same, initial_values, run_skiff, run_torch, skiff_loss, \
    skiff_params

torch = pytest.importorskip("torch")

MAKERS = {
    "momentum": lambda ps, lr: opt_mod.Momentum(lr, 0.9, ps, use_nesterov=True),
    "adam": lambda ps, lr: opt_mod.Adam(lr, parameters=ps),
    "adamw": lambda ps, lr: opt_mod.AdamW(lr, parameters=ps, weight_decay=0.1),
    "rmsprop": lambda ps, lr: opt_mod.RMSProp(lr, parameters=ps, centered=True, momentum=0.5),
    "adagrad": lambda ps, lr: opt_mod.Adagrad(lr, parameters=ps, initial_accumulator_value=0.1),
}


def _train(params, opt, scheduler, steps, first_step=0):
    for step in range(first_step, first_step + steps):
        skiff_loss(params, step).backward()
        opt.step()
        opt.clear_grad()
        scheduler.step()


@pytest.mark.parametrize("case", sorted(MAKERS))
@pytest.mark.parametrize("as_numpy", [False, True])
def test_state_dict_round_trip_continues_identically(case, as_numpy):
    def fresh(values):
        sched = opt_mod.lr.CosineAnnealingDecay(0.05, T_max=4)
        params = skiff_params(values)
        for i, p in enumerate(params):
            p.name = f"fc_{i}.w_0"
        return params, MAKERS[case](params, sched), sched

    params, opt, sched = fresh(initial_values())
    _train(params, opt, sched, 6)
    straight = [p.numpy().copy() for p in params]

    params, opt, sched = fresh(initial_values())
    _train(params, opt, sched, 3)
    state = opt.state_dict()
    assert "LR_Scheduler" in state and state["LR_Scheduler"]["last_epoch"] == 3
    if as_numpy:
        state = {k: v if k == "LR_Scheduler" else v.numpy().copy() for k, v in state.items()}
    values = [p.numpy().copy() for p in params]

    params, opt, sched = fresh(values)
    opt.set_state_dict(state)
    assert sched.last_epoch == 3
    _train(params, opt, sched, 3, first_step=3)
    # (vectorised kernels may round the last bit differently with another alignment)
    assert_same([p.numpy() for p in params], straight, rtol=1e-14, atol=1e-15)


def test_state_names_follow_paddle(paddle):
    def names(mod, layer_cls, opt_cls, **kw):
        layer = layer_cls(3, 2)
        opt = opt_cls(learning_rate=0.1, parameters=layer.parameters(), **kw)
        (layer(mod.ones([1, 3])) * 1.0).sum().backward()
        opt.step()
        return {re.sub(r"linear_\d+", "linear", re.sub(r"_\d+$", "", k))
                for k in opt.state_dict()}
    for cls, kw in [("Adam", {}), ("Momentum", {}), ("RMSProp", {"centered": True}),
                    ("Adagrad", {}), ("AdamW", {})]:
        ours = names(skiff, skiff.nn.Linear, getattr(opt_mod, cls), **kw)
        theirs = names(paddle, paddle.nn.Linear, getattr(paddle.optimizer, cls), **kw)
        assert ours == theirs, cls


def test_set_state_dict_into_existing_accumulators():
    params = skiff_params(initial_values())
    opt = opt_mod.Adam(0.01, parameters=params)
    skiff_loss(params, 0).backward()
    opt.step()
    state = {k: v.numpy() * 0 + 0.5 for k, v in opt.state_dict().items()}
    opt.set_state_dict(state)
    for tensor in opt.state_dict().values():
        np.testing.assert_array_equal(tensor.numpy(), 0.5)
    with pytest.raises(KeyError, match="no entry"):
        opt.set_state_dict({})
    with pytest.raises(ValueError, match="shape"):
        opt.set_state_dict({k: np.zeros((7,)) for k in state})


def test_param_groups_match_torch_groups():
    def ours(ps):
        return opt_mod.Adam(0.02, parameters=[
            {"params": [ps[0]], "learning_rate": 0.5, "beta1": 0.8, "weight_decay": 0.1},
            {"params": [ps[1]]}], weight_decay=0.01)
    got, opt = run_skiff(ours)
    want = run_torch(lambda ps: torch.optim.Adam(
        [{"params": [ps[0]], "lr": 0.01, "betas": (0.8, 0.999), "weight_decay": 0.1},
         {"params": [ps[1]]}], lr=0.02, weight_decay=0.01))
    assert_same(got, want)
    assert len(opt._param_groups) == 2 and opt._param_groups[1]["beta1"] == 0.9


def test_optimize_attr_learning_rate_scales_the_rate():
    def ours(ps):
        ps[1].optimize_attr = {"learning_rate": 3.0}
        return opt_mod.Momentum(0.02, 0.9, ps)
    got, _ = run_skiff(ours)
    want = run_torch(lambda ps: torch.optim.SGD([{"params": [ps[0]]},
                                                 {"params": [ps[1]], "lr": 0.06}],
                                                lr=0.02, momentum=0.9))
    assert_same(got, want)


def test_param_attr_learning_rate_through_a_layer():
    layer = skiff.nn.Linear(3, 2, weight_attr=skiff.ParamAttr(learning_rate=0.0)
                            if hasattr(skiff, "ParamAttr") else skiff.nn.ParamAttr(
                                learning_rate=0.0))
    w0, b0 = layer.weight.numpy().copy(), layer.bias.numpy().copy()
    opt = opt_mod.SGD(0.1, parameters=layer.parameters())
    layer(skiff.ones([4, 3])).sum().backward()
    opt.step()
    np.testing.assert_array_equal(layer.weight.numpy(), w0)
    np.testing.assert_allclose(layer.bias.numpy(), b0 - 0.1 * 4, rtol=1e-6)


def test_frozen_parameters_are_skipped():
    params = skiff_params(initial_values())
    before = [p.numpy().copy() for p in params]
    opt = opt_mod.Adam(0.1, parameters=params)
    skiff_loss(params, 0).backward()
    params[0].trainable = False
    opt.step()
    np.testing.assert_array_equal(params[0].numpy(), before[0])
    assert not np.allclose(params[1].numpy(), before[1])
    assert not any(k.startswith(params[0].name + "_") for k in opt.state_dict())


def test_clear_grad_zeroes_or_drops():
    params = skiff_params(initial_values())
    opt = opt_mod.SGD(0.1, parameters=params)
    skiff_loss(params, 0).backward()
    grad = params[0].grad
    opt.clear_grad()
    assert params[0].grad is grad
    np.testing.assert_array_equal(grad.numpy(), 0.0)
    skiff_loss(params, 1).backward()
    after_one = params[0].grad.numpy().copy()
    opt.clear_grad()
    skiff_loss(params, 1).backward()  # into the cleared grad: equal to a fresh one
    np.testing.assert_array_equal(params[0].grad.numpy(), after_one)
    opt.clear_grad()
    view = params[0].grad.numpy(copy=False)  # writable memory of its own, zeros
    view += 1.0
    np.testing.assert_array_equal(params[0].grad.numpy(), 1.0)
    opt.clear_grad(set_to_zero=False)
    assert params[0].grad is None and params[1].grad is None


def test_minimize_in_eager_applies_the_gradients():
    stepped, _ = run_skiff(lambda ps: opt_mod.Adam(0.02, parameters=ps), steps=2)
    params = skiff_params(initial_values())
    opt = opt_mod.Adam(0.02, parameters=params)
    for step in range(2):
        loss = skiff_loss(params, step)
        loss.backward()
        _, params_grads = opt.minimize(loss)
        assert [p for p, _ in params_grads] == params
        opt.clear_grad()
    assert_same([p.numpy() for p in params], stepped, rtol=1e-14, atol=1e-15)


def test_get_lr_set_lr():
    params = skiff_params(initial_values())
    opt = opt_mod.SGD(0.1, parameters=params)
    assert opt.get_lr() == pytest.approx(0.1)
    opt.set_lr(0.0)
    before = params[0].numpy().copy()
    skiff_loss(params, 0).backward()
    opt.step()
    np.testing.assert_array_equal(params[0].numpy(), before)
    sched = opt_mod.lr.ExponentialDecay(0.5, gamma=0.5)
    opt.set_lr_scheduler(sched)
    sched.step()
    assert opt.get_lr() == pytest.approx(0.25)
    with pytest.raises(RuntimeError, match="LRScheduler"):
        opt.set_lr(0.3)


def test_constructor_errors():
    params = skiff_params(initial_values())
    with pytest.raises(AttributeError, match="parameters"):
        opt_mod.Adam(0.1)
    with pytest.raises(TypeError, match="single Tensor"):
        opt_mod.Adam(0.1, parameters=params[0])
    with pytest.raises(ValueError, match="more than one"):
        opt_mod.Adam(0.1, parameters=[{"params": params}, {"params": [params[0]]}])
    with pytest.raises(TypeError, match="learning_rate"):
        opt_mod.SGD("fast", parameters=params)
