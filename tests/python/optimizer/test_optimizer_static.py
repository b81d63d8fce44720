"""Optimizers in static programs: minimize() appends the backward pass and the same
update ops; the learning rate is a persistable variable the executor refreshes from
the scheduler before each run, so stepping the scheduler needs no rebuilt program.
Static training gives the eager trajectory."""
import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod

STEPS = 5
W0 = np.random.RandomState(7).uniform(-1, 1, (3, 2))
B0 = np.random.RandomState(8).uniform(-1, 1, (2,))


def _batch(step):
    rng = np.random.RandomState(200 + step)
    return rng.uniform(-1, 1, (4, 3)), rng.uniform(-1, 1, (4, 2))


def _loss(x, y, w, b):
    diff = skiff.matmul(x, w) + b - y
    return (diff * diff * diff * diff).mean()


@pytest.fixture
def static():
    import skiff.static as st
    skiff.enable_static()
    try:
        with st.program_guard(st.Program(), st.Program()), st.scope_guard(st.Scope()):
            yield st
    finally:
        skiff.disable_static()


def _eager(make_opt, make_sched=None):
    skiff.disable_static()
    try:
        w = skiff.nn.Parameter(skiff.to_tensor(W0.copy()), name="w")
        b = skiff.nn.Parameter(skiff.to_tensor(B0.copy()), name="b")
        sched = make_sched() if make_sched else None
        opt = make_opt(sched, [w, b])
        for step in range(STEPS):
            x, y = _batch(step)
            _loss(skiff.to_tensor(x), skiff.to_tensor(y), w, b).backward()
            opt.step()
            opt.clear_grad()
            if sched is not None:
                sched.step()
        return w.numpy().copy(), b.numpy().copy()
    finally:
        skiff.enable_static()


def _static(st, make_opt, make_sched=None, on_step=None):
    x = st.data("x", [None, 3], "float64")
    y = st.data("y", [None, 2], "float64")
    init = skiff.nn.initializer.Assign
    w = st.create_parameter([3, 2], "float64", name="w", default_initializer=init(W0))
    b = st.create_parameter([2], "float64", name="b", default_initializer=init(B0))
    loss = _loss(x, y, w, b)
    sched = make_sched() if make_sched else None
    opt = make_opt(sched, None)
    _, params_grads = opt.minimize(loss)
    assert sorted(p.name for p, _ in params_grads) == ["b", "w"]
    main = st.default_main_program()
    n_ops = len(main.global_block().ops)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    for step in range(STEPS):
        xv, yv = _batch(step)
        exe.run(main, feed={"x": xv, "y": yv}, fetch_list=[loss])
        if sched is not None:
            sched.step()
        if on_step is not None:
            on_step(opt, step)
    assert len(main.global_block().ops) == n_ops
    scope = st.global_scope()
    return np.array(scope.find_var("w").get_tensor()), np.array(scope.find_var("b").get_tensor())


CASES = {
    "sgd_step_decay": (lambda s, ps: opt_mod.SGD(s, parameters=ps),
                       lambda: opt_mod.lr.StepDecay(0.25, step_size=2, gamma=0.5)),
    "adam_piecewise": (lambda s, ps: opt_mod.Adam(s, parameters=ps),
                       lambda: opt_mod.lr.PiecewiseDecay([1, 3], [0.125, 0.0625, 0.25])),
    "momentum_l2_clip": (lambda s, ps: opt_mod.Momentum(
        0.125, 0.5, ps, use_nesterov=True, weight_decay=0.25,
        grad_clip=opt_mod.ClipGradByGlobalNorm(0.5)), None),
    "adamw": (lambda s, ps: opt_mod.AdamW(0.0625, parameters=ps, weight_decay=0.5), None),
    "rmsprop": (lambda s, ps: opt_mod.RMSProp(0.03125, parameters=ps, centered=True,
                                              momentum=0.5), None),
    "adagrad_l1": (lambda s, ps: opt_mod.Adagrad(
        0.25, parameters=ps, weight_decay=skiff.regularizer.L1Decay(0.125)), None),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_static_training_matches_eager(static, case):
    make_opt, make_sched = CASES[case]
    want = _eager(make_opt, make_sched)
    got = _static(static, make_opt, make_sched)
    assert not np.allclose(got[0], W0)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-14)


def test_scheduler_is_recorded_on_the_program(static):
    x = static.data("x", [None, 3], "float64")
    w = static.create_parameter([3, 2], "float64", name="w")
    sched = opt_mod.lr.ExponentialDecay(0.5, gamma=0.5)
    opt_mod.SGD(sched).minimize(skiff.matmul(x, w).mean())
    main = static.default_main_program()
    assert main.lr_scheduler is sched
    var = main.global_block().var(sched._var_name)
    assert var.persistable and list(var.shape) == [1]


def test_set_lr_in_static_mode_updates_the_variable(static):
    def freeze_after_two(opt, step):
        if step == 1:
            opt.set_lr(0.0)
    frozen = _static(static, lambda s, ps: opt_mod.SGD(0.25, parameters=ps),
                     on_step=freeze_after_two)
    skiff.disable_static()
    try:
        w = skiff.nn.Parameter(skiff.to_tensor(W0.copy()), name="w")
        b = skiff.nn.Parameter(skiff.to_tensor(B0.copy()), name="b")
        opt = opt_mod.SGD(0.25, parameters=[w, b])
        for step in range(2):
            x, y = _batch(step)
            _loss(skiff.to_tensor(x), skiff.to_tensor(y), w, b).backward()
            opt.step()
            opt.clear_grad()
        np.testing.assert_allclose(frozen[0], w.numpy(), rtol=1e-12)
    finally:
        skiff.enable_static()


def test_minimize_only_the_given_parameters(static):
    x = static.data("x", [None, 3], "float64")
    init = skiff.nn.initializer.Assign
    w = static.create_parameter([3, 2], "float64", name="w", default_initializer=init(W0))
    b = static.create_parameter([2], "float64", name="b", default_initializer=init(B0))
    loss = (skiff.matmul(x, w) + b).mean()
    ops, params_grads = opt_mod.Adam(0.5).minimize(loss, parameters=[w])
    assert [p.name for p, _ in params_grads] == ["w"]
    assert [op.type for op in ops][-1] == "adam"
    exe = static.Executor()
    exe.run(static.default_startup_program())
    exe.run(feed={"x": _batch(0)[0]}, fetch_list=[loss])
    scope = static.global_scope()
    np.testing.assert_array_equal(np.array(scope.find_var("b").get_tensor()), B0)
    assert not np.allclose(np.array(scope.find_var("w").get_tensor()), W0)


def check_static_matches_eager(st, make):
    """make(scheduler, params) trained by minimize in a program, with a step-decay schedule,
    gives the parameters of the same optimizer trained eagerly."""
    def sched():
        return opt_mod.lr.StepDecay(0.5, step_size=2, gamma=0.5)
    want = _eager(make, sched)
    got = _static(st, make, sched)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12, atol=1e-14)


def check_float32_follows_float64(make, names):
    """Each optimizer make(name, params) keeps float32 parameters on its float64 trajectory."""
    from optim_common import assert_same, initial_values, run_skiff
    values = initial_values(dtype="float32")
    for name in names:
        got, _ = run_skiff(lambda ps: make(name, ps), values=values)
        want, _ = run_skiff(lambda ps: make(name, ps), values=[v.astype("float64") for v in values])
        assert got[0].dtype == np.float32
        assert_same(got, want, rtol=2e-4, atol=2e-5)
