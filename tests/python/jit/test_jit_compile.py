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


def test_transformer_encoder_training_program_compiles_and_matches(tmp_path):
    """nn.TransformerEncoder (2 layers, multi-head attention) with a classifier, trained by
    Adam: the compiled training program takes 3 steps as the executor does."""
    import skiff.nn as nn
    import skiff.static as static
    skiff.enable_static()
    try:
        skiff.seed(0)
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [4, 5, 16], "float32")
            y = static.data("y", [4], "int64")
            encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0), 2)
            logits = nn.Linear(16, 3)(encoder(x).mean(axis=1))
            loss = nn.functional.cross_entropy(logits, y)
            skiff.optimizer.Adam(learning_rate=0.01).minimize(loss)
        exe = static.Executor()
        exe.run(startup)
        prefix = str(tmp_path / "encoder")
        static.save(main, prefix)
        params = [p.name for p in main.all_parameters()]
        built = skiff.jit.compile(prefix, str(tmp_path / "out"), feeds=["x", "y"],
                                  fetches=[loss.name] + params)
        rng = np.random.default_rng(3)
        x_value = rng.standard_normal([4, 5, 16]).astype(np.float32)
        y_value = rng.integers(0, 3, [4]).astype(np.int64)
        for _ in range(3):
            want = exe.run(main, feed={"x": x_value, "y": y_value}, fetch_list=[loss] + params)
        np.save(tmp_path / "x.npy", x_value)
        np.save(tmp_path / "y.npy", y_value)
        subprocess.run([built["executable"], "--in", f"x={tmp_path / 'x.npy'}", "--in",
                        f"y={tmp_path / 'y.npy'}", "--repeat", "3", "--out",
                        str(tmp_path / "res")], check=True, capture_output=True, timeout=120)
        for name, value in zip([loss.name] + params, want):
            got = np.load(tmp_path / "res" / f"{name}.npy")
            np.testing.assert_allclose(got, value, rtol=1e-4, atol=1e-5, err_msg=name)
    finally:
        skiff.disable_static()
