"""skiff.utils: run_check, unique_name, try_import, deprecated (as paddle.utils)."""
import math
import warnings

import paddle
import pytest

import skiff
from skiff.utils import unique_name


def test_run_check(capsys):
    skiff.utils.run_check()
    out = capsys.readouterr().out
    assert "installed successfully" in out and "CPU" in out


def test_unique_name_generate_and_guard_match_paddle():
    key = "utils_test_key"
    ours, theirs = [], []
    for mod, log in ((unique_name, ours), (paddle.utils.unique_name, theirs)):
        log += [mod.generate(key), mod.generate(key)]
        with mod.guard():
            log.append(mod.generate(key))
        with mod.guard("pre_"):
            log.append(mod.generate(key))
        log.append(mod.generate(key))
    assert ours == theirs == [f"{key}_0", f"{key}_1", f"{key}_0", f"pre_{key}_0", f"{key}_2"]


def test_unique_name_guard_restarts_layer_names():
    with unique_name.guard():
        a = skiff.nn.Linear(2, 2)
    with unique_name.guard():
        b = skiff.nn.Linear(2, 2)
    assert a.weight.name == b.weight.name == "linear_0.w_0"


def test_unique_name_switch():
    unique_name.generate("sw_key")                 # the old counters have seen sw_key once
    old = unique_name.switch()
    assert unique_name.generate("sw_key") == "sw_key_0"
    fresh = unique_name.switch(old)
    before = unique_name.generate("sw_key")
    assert before != "sw_key_0"
    unique_name.switch(fresh)
    assert unique_name.generate("sw_key") == "sw_key_1"
    unique_name.switch(old)
    assert old.counts["sw_key"] >= 2
    with pytest.raises(TypeError, match="switch"):
        unique_name.switch("not a generator")


def test_try_import():
    assert skiff.utils.try_import("math") is math
    with pytest.raises(ImportError, match="nonexistent_mod_xyz"):
        skiff.utils.try_import("nonexistent_mod_xyz")
    with pytest.raises(ImportError, match="custom message"):
        skiff.utils.try_import("nonexistent_mod_xyz", "custom message")


def test_deprecated_levels():
    @skiff.utils.deprecated(since="2.0", update_to="paddle.bar", reason="old")
    def quiet(x):
        """doc"""
        return x + 1

    @skiff.utils.deprecated(since="2.0", update_to="paddle.bar", level=1)
    def loud(x):
        return x + 1

    @skiff.utils.deprecated(level=2)
    def gone(x):
        return x

    assert quiet(1) == 2 and 'is deprecated since 2.0' in quiet.__doc__
    assert quiet.__doc__.endswith("doc") and "Reason: old" in quiet.__doc__
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert loud(1) == 2
    assert any(issubclass(x.category, DeprecationWarning) and "paddle.bar" in str(x.message)
               for x in w)
    with pytest.raises(RuntimeError, match="gone.*has been deprecated"):
        gone(1)
    with pytest.raises(ValueError, match="level"):
        skiff.utils.deprecated(level=3)
