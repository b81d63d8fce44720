"""Print shows values when the program runs and gradients in backward; check_nan_inf
stops at the first op producing NaN or Inf, naming the op, its output and the line."""
import inspect

import numpy as np
import pytest

import skiff


def _line():
    return inspect.currentframe().f_back.f_lineno


def test_print_shows_the_value_and_its_gradient(static, capfd):
    x = static.data("x", [2, 2], "float64")
    w = static.create_parameter([2, 2], "float64",
                                default_initializer=skiff.nn.initializer.Constant(2.0))
    product = x * w
    shown = static.Print(product, message="product:", summarize=3)
    loss = (shown * shown).sum()
    static.append_backward(loss)
    exe = static.Executor()
    exe.run(static.default_startup_program())
    capfd.readouterr()
    exe.run(feed={"x": np.array([[1.0, 2.0], [3.0, 4.0]])}, fetch_list=[loss])
    out = capfd.readouterr().out
    forward, backward = out.split("product: Variable: ")[1:3]
    assert forward.startswith(product.name + "\n")
    assert "  - shape: [2, 2]\n  - dtype: float64\n  - data: [2 4 6 ... (1 more)]" in forward
    # d loss / d shown = 2 * shown
    assert backward.startswith(product.name + "@GRAD")
    assert "  - data: [4 8 12 ... (1 more)]" in backward


def test_print_phases_and_eager_use(static, capfd):
    x = static.data("x", [3])
    y = static.Print(x, message="fwd only", print_phase="forward")
    static.gradients(skiff.sum(y * y), [x])
    static.Executor().run(feed={"x": np.array([1.0, 2.0, 3.0], np.float32)}, fetch_list=[y])
    out = capfd.readouterr().out
    assert out.count("fwd only Variable: x") == 1 and "@GRAD" not in out
    assert "  - data: [1 2 3]" in out
    with pytest.raises(skiff.Error, match="first_n"):
        static.Print(x, first_n=-2)


def test_print_first_n_runs_only(static, capfd):
    x = static.data("x", [2])
    w = static.create_parameter([2], "float32",
                                default_initializer=skiff.nn.initializer.Constant(3.0))
    twice = static.Print(x * w, first_n=2, message="twice")
    once = static.Print(x + w, first_n=1, message="once", print_phase="forward")
    static.append_backward(skiff.sum(twice * once))
    exe = static.Executor()
    exe.run(static.default_startup_program())
    for _ in range(4):
        exe.run(feed={"x": np.array([1.0, 2.0], np.float32)}, fetch_list=[twice])
    out = capfd.readouterr().out
    assert out.count("once Variable: ") == 1
    forward = [b for b in out.split("twice Variable: ")[1:] if "@GRAD" not in b.split("\n")[0]]
    backward = [b for b in out.split("twice Variable: ")[1:] if "@GRAD" in b.split("\n")[0]]
    assert len(forward) == 2 and len(backward) == 2  # value and gradient counted apart


def test_check_nan_inf_names_the_op_output_and_line(static):
    x = static.data("x", [3])
    y = skiff.exp(x)
    line = _line() + 1
    z = skiff.log(y - 1.0)
    out = z * 2.0
    exe = static.Executor()
    feed = {"x": np.array([1.0, 0.0, 2.0], np.float32)}
    got, = exe.run(feed=feed, fetch_list=[out])  # off: -inf flows through
    assert np.isneginf(got[1])
    skiff.set_flags({"FLAGS_check_nan_inf": True})
    assert skiff.get_flags(["FLAGS_check_nan_inf"]) == {"FLAGS_check_nan_inf": True}
    with pytest.raises(skiff.Error) as e:
        exe.run(feed=feed, fetch_list=[out])
    msg = str(e.value)
    assert "op 'log'" in msg and f"{__file__}:{line}" in msg
    assert f"output Out={z.name} holds -inf at element 1" in msg
    skiff.set_flags({"check_nan_inf": False})
    assert skiff.get_flags("check_nan_inf") == {"check_nan_inf": False}
    with pytest.raises(ValueError, match="unknown flag"):
        skiff.set_flags({"FLAGS_no_such_flag": 1})
