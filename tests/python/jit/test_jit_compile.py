"""skiff.jit.compile: a layer saved with jit.save, compiled to a native executable, gives
the outputs the interpreter (jit.load) gives."""
import os
import subprocess

import numpy as np
import pytest

import skiff
from skiff.static import InputSpec


def test_compiled_mlp_matches_the_interpreter(tmp_path):
    skiff.seed(5)
    net = skiff.nn.Sequential(skiff.nn.Linear(6, 16), skiff.nn.Tanh(), skiff.nn.Linear(16, 3))
    prefix = str(tmp_path / "mlp")
    skiff.jit.save(net, prefix, input_spec=[InputSpec([2, 6], "float32", "x")])
    built = skiff.jit.compile(prefix, str(tmp_path / "out"))
    assert os.path.exists(built["executable"]) and built["source"].endswith("model.cc")

    x = np.random.default_rng(0).standard_normal((2, 6)).astype(np.float32)
    expected = skiff.jit.load(prefix)(skiff.to_tensor(x)).numpy()
    (name,) = built["inputs"]
    (out_name,) = built["outputs"]
    np.save(tmp_path / "x.npy", x)
    subprocess.run([built["executable"], "--in", f"{name}={tmp_path / 'x.npy'}", "--out",
                    str(tmp_path / "res")], check=True, capture_output=True, timeout=120)
    got = np.load(tmp_path / "res" / f"{out_name}.npy")
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(skiff.Error, match="no program"):
        skiff.jit.compile(str(tmp_path / "absent"), str(tmp_path / "out"))
