"""A Paddle 2.x static-graph script (fc, mean square error, SGD minimize, weights set
through the global scope) gives the same losses under PaddlePaddle and under skiff.
Paddle runs in a subprocess with its classic (non-PIR) static graph."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = '''
import numpy as np

def run(pd, w0, b0, xs, ys, steps=6):
    pd.enable_static()
    try:
        main, startup = pd.static.Program(), pd.static.Program()
        with pd.static.program_guard(main, startup):
            x = pd.static.data("x", [None, 3], "float32")
            y = pd.static.data("y", [None, 1], "float32")
            h = pd.static.nn.fc(x, 4, activation="tanh")
            pred = pd.static.nn.fc(h, 1)
            loss = pd.mean((pred - y) ** 2)
            pd.optimizer.SGD(learning_rate=0.1).minimize(loss)
        exe = pd.static.Executor(pd.CPUPlace())
        exe.run(startup)
        params = main.all_parameters()
        scope = pd.static.global_scope()
        for p, value in zip(params, (w0[0], b0[0], w0[1], b0[1])):
            scope.find_var(p.name).get_tensor().set(value, pd.CPUPlace())
        return [float(exe.run(main, feed={"x": xs, "y": ys}, fetch_list=[loss])[0])
                for _ in range(steps)]
    finally:
        pd.disable_static()

rng = np.random.default_rng(0)
w0 = [rng.standard_normal((3, 4)).astype(np.float32),
      rng.standard_normal((4, 1)).astype(np.float32)]
b0 = [rng.standard_normal(4).astype(np.float32), np.array([0.5], np.float32)]
xs = rng.standard_normal((8, 3)).astype(np.float32)
ys = rng.standard_normal((8, 1)).astype(np.float32)
'''


def test_static_sgd_script_matches_paddle():
    pytest.importorskip("paddle")
    code = SCRIPT + "import json, paddle\nprint(json.dumps(run(paddle, w0, b0, xs, ys)))\n"
    env = dict(os.environ, FLAGS_enable_pir_api="0", GLOG_minloglevel="2")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    paddle_losses = json.loads(done.stdout.strip().splitlines()[-1])

    import skiff
    scope = {}
    exec(compile(SCRIPT, "paddle_script.py", "exec"), scope)
    skiff_losses = scope["run"](skiff, scope["w0"], scope["b0"], scope["xs"], scope["ys"])
    assert skiff_losses[-1] < skiff_losses[0]
    np.testing.assert_allclose(skiff_losses, paddle_losses, rtol=1e-5)
