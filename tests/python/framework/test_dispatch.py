"""The dispatch point (skiff.framework.core): every way a Python call reaches an op —
functions, their cached fast paths, Tensor's C operators, in-place updates — is seen by a
hook installed with core.hooked, and gives the same result as without it."""
import os
import re

import numpy as np

import skiff
import skiff.nn.functional as F
from skiff.framework import core

PACKAGE = os.path.dirname(skiff.__file__)


def _recording():
    seen = []

    def hook(type, inputs, attrs, output_counts, out):
        seen.append(type)
        return core.run_unhooked(type, inputs, attrs, output_counts, out)
    return seen, hook


def _calls():
    rng = np.random.default_rng(0)
    x = skiff.to_tensor(rng.standard_normal((4, 3)).astype("float32"))
    y = skiff.to_tensor(rng.standard_normal((4, 3)).astype("float32"))
    w = skiff.to_tensor(rng.standard_normal((3, 5)).astype("float32"))
    label = skiff.to_tensor(np.array([0, 2, 1, 4]))
    class_weight = skiff.to_tensor(np.linspace(0.5, 1.5, 5).astype("float32"))
    return {
        "elementwise_add": lambda: x + y,                 # Tensor's C operator slots
        "elementwise_sub": lambda: x - y,
        "elementwise_mul": lambda: x * y,
        "elementwise_div": lambda: x / y,
        "matmul": lambda: x @ w,
        "tanh": lambda: skiff.tanh(x),                    # a function's cached _C.Op
        "relu": lambda: F.relu(x),
        "reshape": lambda: skiff.reshape(x, [12]),        # run_cached
        "reduce_sum": lambda: skiff.sum(x, axis=0),
        "softmax_with_cross_entropy": lambda: F.cross_entropy(x @ w, label),  # the loss's
        "log_softmax": lambda: F.cross_entropy(x @ w, label, weight=class_weight),  # fast paths
        "nll_loss": lambda: F.cross_entropy(x @ w, label, weight=class_weight),
        "scale": lambda: x * 2.0,                         # number operand: Python path
    }


def test_a_hook_sees_every_way_into_the_ops_and_changes_nothing():
    for expected, call in _calls().items():
        plain = call().numpy()
        seen, hook = _recording()
        with core.hooked(hook):
            hooked = call().numpy()
        assert expected in seen, f"{expected}: the hook saw only {seen}"
        np.testing.assert_array_equal(hooked, plain)
    assert core.mode.hooks == ()


def test_in_place_updates_reach_the_hook():
    w = skiff.create_parameter([3, 2], "float32")
    opt = skiff.optimizer.SGD(learning_rate=0.1, parameters=[w])
    skiff.sum(w * w).backward()
    seen, hook = _recording()
    with core.hooked(hook):
        opt.step()
    assert "sgd" in seen


def test_static_mode_sees_the_fast_paths():
    """In static mode the cached ops and C operators append ops to the program."""
    skiff.enable_static()
    try:
        main = skiff.static.Program()
        with skiff.static.program_guard(main, skiff.static.Program()):
            x = skiff.static.data("x", [2, 3], "float32")
            skiff.tanh(x + x)
        types = [op.type for op in main.global_block().ops]
    finally:
        skiff.disable_static()
    assert types == ["elementwise_add", "tanh"]


def test_hooks_nest_innermost_first():
    outer_seen, outer = _recording()
    inner_seen, inner = _recording()
    x = skiff.ones([2])
    with core.hooked(outer):
        with core.hooked(inner):
            skiff.tanh(x)
        skiff.exp(x)
    assert inner_seen == ["tanh"] and outer_seen == ["exp"]


def test_only_the_dispatch_point_runs_ops_past_it():
    """The calls that skip the dispatch point (_C.Op.run / run_into) and the switch that
    routes the fast paths are used by framework/core.py and framework/mode.py alone."""
    past = re.compile(r"\.run_into\(|\bop\.run\(|set_python_dispatch")
    found, scanned = [], 0
    for folder, _, files in os.walk(PACKAGE, followlinks=True):
        for name in files:
            path = os.path.join(folder, name)
            scanned += 1
            rel = os.path.relpath(path, PACKAGE)
            if not name.endswith(".py") or rel in (os.path.join("framework", "core.py"),
                                                   os.path.join("framework", "mode.py")):
                continue
            with open(path) as f:
                for lineno, line in enumerate(f, 1):
                    if past.search(line):
                        found.append(f"{rel}:{lineno}: {line.strip()}")
    assert scanned > 200 and not found, "\n".join(found)
