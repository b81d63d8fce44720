"""The closed-form learning-rate schedules are their lr_* ops: a scheduler's value is
its op run on a counter holding last_epoch (also in static mode and under a hook), and
a static program computes its rate with that op from a step counter the executor writes,
giving eager's rate at every step; host-side schedules keep the written rate."""
import numpy as np
import pytest

import skiff
from skiff import _C, _C_ops
from skiff import optimizer as opt_mod
from skiff.framework import core
from skiff.optimizer import lr

# scheduler, the op, and its attributes
OP_BACKED = [
    (lambda: lr.StepDecay(0.5, 3, 0.3), "lr_step_decay",
     {"learning_rate": 0.5, "step_size": 3, "gamma": 0.3}),
    (lambda: lr.ExponentialDecay(0.5, 0.9), "lr_exponential_decay",
     {"learning_rate": 0.5, "gamma": 0.9}),
    (lambda: lr.PiecewiseDecay([3, 6], [0.1, 0.05, 0.01]), "lr_piecewise_decay",
     {"boundaries": [3.0, 6.0], "values": [0.1, 0.05, 0.01]}),
    (lambda: lr.MultiStepDecay(0.5, [2, 5], 0.5), "lr_multistep_decay",
     {"learning_rate": 0.5, "milestones": [2.0, 5.0], "gamma": 0.5}),
    (lambda: lr.NoamDecay(64, 5, 2.0), "lr_noam_decay",
     {"learning_rate": 2.0, "d_model": 64.0, "warmup_steps": 5.0}),
    (lambda: lr.PolynomialDecay(0.5, 4, 0.01, 1.5, cycle=True), "lr_polynomial_decay",
     {"learning_rate": 0.5, "decay_steps": 4, "end_lr": 0.01, "power": 1.5, "cycle": True}),
    (lambda: lr.CosineAnnealingDecay(0.5, 6, 0.01), "lr_cosine_annealing",
     {"learning_rate": 0.5, "T_max": 6, "eta_min": 0.01}),
    (lambda: lr.CyclicLR(0.1, 1.0, 3, 5), "lr_cyclic",
     {"learning_rate": 0.1, "max_learning_rate": 1.0, "step_size_up": 3.0,
      "step_size_down": 5.0}),
    (lambda: lr.CosineAnnealingWarmRestarts(0.5, 3, 2, 0.05), "lr_cosine_warm_restarts",
     {"learning_rate": 0.5, "T_0": 3, "T_mult": 2, "eta_min": 0.05}),
]


def _op_value(op_type, attrs, step):
    counter = _C.tensor_from_array(np.array([step], dtype=np.int64), False)
    return getattr(_C_ops, op_type)(counter, dtype="float64", **attrs).item()


@pytest.mark.parametrize("case", range(len(OP_BACKED)), ids=[c[1] for c in OP_BACKED])
def test_value_is_the_op_run_on_last_epoch(case):
    make, op_type, attrs = OP_BACKED[case]
    sched = make()
    for step in range(12):
        assert sched.last_epoch == step
        assert sched() == _op_value(op_type, attrs, step)
        sched.step()


def test_get_lr_calls_the_op(monkeypatch):
    calls = []
    real = _C_ops.lr_step_decay

    def spy(step, **attrs):
        calls.append((step.item(), attrs))
        return real(step, **attrs)
    monkeypatch.setattr(_C_ops, "lr_step_decay", spy)
    sched = lr.StepDecay(1.0, 2, 0.5)
    sched.step()
    sched.step(5)
    assert [c[0] for c in calls] == [0, 1, 5]
    assert calls[-1][1] == {"learning_rate": 1.0, "step_size": 2, "gamma": 0.5,
                            "dtype": "float64"}
    assert sched() == 0.25


def test_get_lr_runs_now_in_static_mode_and_under_a_hook():
    seen = []

    def hook(type, inputs, attrs, output_counts, out):
        seen.append(type)
        return core.run_unhooked(type, inputs, attrs, output_counts, out)
    sched = lr.StepDecay(1.0, 1, 0.5)
    with core.hooked(hook):
        sched.step()
    skiff.enable_static()
    try:
        sched.step()
        with core.hooked(hook):
            sched.step()
        assert skiff.in_dynamic_mode() is False
    finally:
        skiff.disable_static()
    assert sched() == 0.125
    assert seen == []


@pytest.fixture
def static():
    import skiff.static as st
    skiff.enable_static()
    try:
        with st.program_guard(st.Program(), st.Program()), st.scope_guard(st.Scope()):
            yield st
    finally:
        skiff.disable_static()


def _program_rates(st, make_sched, steps=8):
    """The rates a program built by SGD(make_sched()).minimize uses over ``steps`` runs
    (the scheduler stepped after each), the scheduler's rates, and the program."""
    x = st.data("x", [None, 3], "float32")
    w = st.create_parameter([3, 2], "float32", name="w")
    sched = make_sched()
    opt_mod.SGD(sched).minimize(skiff.matmul(x, w).mean())
    main = st.default_main_program()
    exe = st.Executor()
    exe.run(st.default_startup_program())
    got, want = [], []
    for _ in range(steps):
        got.append(exe.run(main, feed={"x": np.ones((2, 3), "float32")},
                           fetch_list=[sched._var_name])[0][0])
        want.append(np.float32(sched()))
        sched.step()
    return got, want, main, sched


def test_static_program_holds_the_schedule_op(static):
    got, want, main, sched = _program_rates(static, lambda: lr.StepDecay(0.5, 2, 0.5))
    assert got == want
    assert len(set(got)) > 1
    ops = [op for op in main.global_block().ops if op.type == "lr_step_decay"]
    assert len(ops) == 1
    counter = main.global_block().var(sched._step_var_name)
    assert counter.persistable and counter.dtype == "int64"
    assert ops[0].input("Step") == [sched._step_var_name]
    assert ops[0].output("Out") == [sched._var_name]
    # the executor wrote last_epoch (as it was before the last step) into the counter
    counter_value = np.array(static.global_scope().find_var(sched._step_var_name).get_tensor())
    assert counter_value.tolist() == [sched.last_epoch - 1]


@pytest.mark.parametrize("make", [
    lambda: lr.LinearWarmup(lr.CosineAnnealingDecay(0.4, 5, 0.02), 3, 0.0, 0.4),
    lambda: lr.LinearWarmup(0.4, 3, 0.1, 0.3),
    lambda: lr.OneCycleLR(1.0, 10),
    lambda: lr.LinearLR(0.5, 4, 0.25, 0.9),
    lambda: lr.NaturalExpDecay(0.5, 0.1),
    lambda: lr.InverseTimeDecay(0.5, 0.2),
], ids=["warmup_cosine", "warmup_float", "one_cycle", "linear_lr", "natural_exp",
        "inverse_time"])
def test_static_rates_match_eager(static, make):
    got, want, main, sched = _program_rates(static, make)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert sched._step_var_name is not None
    assert any(op.type.startswith("lr_") for op in main.global_block().ops)


def test_host_side_schedule_writes_the_rate(static):
    got, want, main, sched = _program_rates(static, lambda: lr.LambdaDecay(0.5, lambda e: 0.9**e))
    assert got == want
    assert sched._step_var_name is None
    assert not any(op.type.startswith("lr_") for op in main.global_block().ops)
