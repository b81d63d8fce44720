"""paddle.jit.set_verbosity, set_code_level and ignore_module: what to_static prints
about its conversion, and which modules' functions it leaves unconverted."""
import importlib
import sys
import textwrap

import numpy as np
import pytest

import skiff
from skiff.jit import config


@pytest.fixture(autouse=True)
def _reset_levels():
    saved, ignored = dict(config._state), set(config._ignored)
    yield
    config._state.clear()
    config._state.update(saved)
    config._ignored.clear()
    config._ignored.update(ignored)


def _calling(fn):
    """to_static of a function that calls ``fn`` (which the converter then meets)."""
    def call(x):
        return fn(x)
    return skiff.jit.to_static(call)


def _module(tmp_path, name):
    # (the tag makes each helper's code distinct: equal code objects share a conversion)
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(f"""
        import skiff

        def helper(x):
            tag = "{name}"
            if skiff.mean(x) > 0:
                return x + 1
            return x - 1
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(tmp_path))


def test_set_code_level_prints_the_code_of_a_stage(tmp_path, capsys):
    mod = _module(tmp_path, "jit_cfg_code")
    skiff.jit.set_code_level(100, also_to_stdout=True)
    f = _calling(mod.helper)
    np.testing.assert_allclose(f(skiff.to_tensor(np.ones(2, "float32"))).numpy(), [2, 2])
    out = capsys.readouterr()
    assert "helper after stage 3 (control flow converted)" in out.err
    assert "helper after stage 3" in out.out and "def helper(x):" in out.out
    assert "_jst" in out.out  # the converted form, not the source


def test_code_level_one_shows_lowered_for_loops(tmp_path, capsys):
    mod = _module(tmp_path, "jit_cfg_level1")
    (tmp_path / "jit_cfg_loop.py").write_text(textwrap.dedent("""
        def looped(x):
            for i in range(3):
                x = x + i
            return x
    """))
    sys.path.insert(0, str(tmp_path))
    try:
        loop_mod = importlib.import_module("jit_cfg_loop")
    finally:
        sys.path.remove(str(tmp_path))
    skiff.jit.set_code_level(1)
    f = _calling(loop_mod.looped)
    np.testing.assert_allclose(f(skiff.to_tensor(np.zeros(2, "float32"))).numpy(), [3, 3])
    err = capsys.readouterr().err
    assert "looped after stage 1 (for loops lowered to while)" in err
    assert "while " in err and "after stage 3" not in err
    assert mod is not None
    skiff.jit.set_code_level(0)
    _calling(mod.helper)(skiff.to_tensor(np.ones(2, "float32")))
    assert "after stage" not in capsys.readouterr().err


def test_set_verbosity_reports_conversions(tmp_path, capsys):
    mod = _module(tmp_path, "jit_cfg_verbose")
    skiff.jit.set_verbosity(1)
    _calling(mod.helper)(skiff.to_tensor(np.ones(2, "float32")))
    out = capsys.readouterr()
    assert "[to_static] converting helper" in out.err and out.out == ""
    skiff.jit.set_verbosity(0)
    mod2 = _module(tmp_path, "jit_cfg_quiet")
    _calling(mod2.helper)(skiff.to_tensor(np.ones(2, "float32")))
    assert "converting" not in capsys.readouterr().err
    with pytest.raises(TypeError, match="level"):
        skiff.jit.set_verbosity("high")
    with pytest.raises(TypeError, match="level"):
        skiff.jit.set_code_level(1.5)


def test_ignore_module_leaves_its_functions_unconverted(tmp_path, capsys):
    mod = _module(tmp_path, "jit_cfg_ignored")
    x = skiff.to_tensor(np.full(2, -1.0, "float32"))
    converted = _calling(mod.helper)
    np.testing.assert_allclose(converted(x).numpy(), [-2, -2])
    mod_b = _module(tmp_path, "jit_cfg_ignored_b")
    skiff.jit.ignore_module([mod_b])
    skiff.jit.set_verbosity(2)
    traced = _calling(mod_b.helper)
    with pytest.raises(Exception, match="(?i)bool|truth|tensor"):
        traced(x)  # run as written, its `if` on a tensor cannot be traced
    assert "helper runs as written (its module is ignored)" in capsys.readouterr().err
    with pytest.raises(TypeError, match="modules"):
        skiff.jit.ignore_module(["numpy"])
    skiff.jit.ignore_module(np)  # a single module is accepted too
    assert config.is_ignored(np.linalg.norm)
