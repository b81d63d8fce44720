"""jit.save of a converted model computes in int8: its Linear layers become quantize_linear
+ quantized_matmul (int8 products, int32 sums, relu fused), the loaded model gives the
converted model's outputs, and a quantized conv (no int8 kernel yet) stays float with a
warning naming it."""
import numpy as np
import pytest

import skiff
import skiff.nn as nn
from skiff.quantization import PTQ, QuantConfig
from skiff.quantization.observers import AbsmaxObserver, PerChannelAbsmaxObserver
from skiff.static import InputSpec


def converted(model, x):
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(model)
    with skiff.no_grad():
        observed(skiff.to_tensor(x))
    return ptq.convert(observed)


def test_saved_int8_mlp_runs_int8_matmuls(tmp_path):
    skiff.seed(0)
    x = np.random.default_rng(0).standard_normal([8, 16]).astype(np.float32)
    int8 = converted(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)), x)
    path = str(tmp_path / "mlp")
    skiff.jit.save(int8, path, input_spec=[InputSpec([None, 16], "float32", "x")])
    loaded = skiff.jit.load(path)
    kinds = [op.type for op in loaded.program().global_block().ops]
    assert kinds.count("quantized_matmul") == 2 and "fake_quantize_dequantize" not in kinds
    assert "matmul" not in kinds and "relu" not in kinds  # relu fused into the first
    with skiff.no_grad():
        want = int8(skiff.to_tensor(x)).numpy()
    got = loaded(skiff.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_a_quantized_conv_stays_float_with_a_warning(tmp_path):
    skiff.seed(0)
    x = np.random.default_rng(0).standard_normal([2, 1, 4, 4]).astype(np.float32)
    int8 = converted(nn.Sequential(nn.Conv2D(1, 2, 3, padding=1), nn.Flatten(),
                                   nn.Linear(32, 3)), x)
    with pytest.warns(UserWarning, match="1 quantized op\\(s\\) stay float32: op "
                                         "'fake_quantize_dequantize'"):
        skiff.jit.save(int8, str(tmp_path / "cnn"),
                       input_spec=[InputSpec([None, 1, 4, 4], "float32", "x")])
    loaded = skiff.jit.load(str(tmp_path / "cnn"))
    with skiff.no_grad():
        want = int8(skiff.to_tensor(x)).numpy()
    np.testing.assert_allclose(loaded(skiff.to_tensor(x)).numpy(), want, rtol=1e-5, atol=1e-5)
