"""jit.save of a converted model computes in int8: its Linear and Conv2D layers become
quantize_linear + quantized_matmul / quantized_conv2d (int8 products, int32 sums, relu
fused, int8 handed from layer to layer), the loaded model gives the converted model's
outputs, and a quantized layer the pass cannot take stays float with a warning naming it."""
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


def test_saved_int8_cnn_runs_int8_convolutions(tmp_path):
    """conv -> relu -> conv -> flatten -> linear: the first convolution gives int8 to the
    second (requantized), the second float to the flatten."""
    skiff.seed(0)
    x = np.random.default_rng(0).standard_normal([2, 2, 6, 6]).astype(np.float32)
    int8 = converted(nn.Sequential(nn.Conv2D(2, 4, 3, padding=1), nn.ReLU(),
                                   nn.Conv2D(4, 3, 3, stride=2), nn.Flatten(),
                                   nn.Linear(12, 3)), x)
    path = str(tmp_path / "cnn")
    skiff.jit.save(int8, path, input_spec=[InputSpec([None, 2, 6, 6], "float32", "x")])
    loaded = skiff.jit.load(path)
    ops = loaded.program().global_block().ops
    kinds = [op.type for op in ops]
    assert kinds.count("quantized_conv2d") == 2 and kinds.count("quantized_matmul") == 1, kinds
    assert "conv2d" not in kinds and "relu" not in kinds, kinds
    first = next(op for op in ops if op.type == "quantized_conv2d")
    assert first.input("OutScale"), "the first convolution should requantize for the second"
    with skiff.no_grad():
        want = int8(skiff.to_tensor(x)).numpy()
    np.testing.assert_allclose(loaded(skiff.to_tensor(x)).numpy(), want, rtol=1e-5, atol=1e-5)


def test_a_conv_that_cannot_be_int8_stays_float_with_a_warning(tmp_path):
    """An NHWC convolution reads its input through a transpose: it is left float."""
    skiff.seed(0)
    x = np.random.default_rng(0).standard_normal([2, 4, 4, 1]).astype(np.float32)
    int8 = converted(nn.Sequential(nn.Conv2D(1, 2, 3, padding=1, data_format="NHWC"),
                                   nn.Flatten(), nn.Linear(32, 3)), x)
    with pytest.warns(UserWarning, match="1 quantized op\\(s\\) stay float32: op "
                                         "'fake_quantize_dequantize'.*its reader is not a "
                                         "matmul or conv2d"):
        skiff.jit.save(int8, str(tmp_path / "cnn"),
                       input_spec=[InputSpec([None, 4, 4, 1], "float32", "x")])
    loaded = skiff.jit.load(str(tmp_path / "cnn"))
    kinds = [op.type for op in loaded.program().global_block().ops]
    assert kinds.count("quantized_matmul") == 1 and "conv2d" in kinds, kinds
    with skiff.no_grad():
        want = int8(skiff.to_tensor(x)).numpy()
    np.testing.assert_allclose(loaded(skiff.to_tensor(x)).numpy(), want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("target", ["x86-64", "portable"])
def test_compiled_int8_cnn_matches_the_interpreter(tmp_path, target):
    """skiff compile of a saved int8 model: the generated code calls the int8 kernels
    (linked from libskiff, or built from source without oneDNN: 'portable') and gives the
    interpreter's outputs."""
    import subprocess
    skiff.seed(0)
    x = np.random.default_rng(1).standard_normal([3, 1, 8, 8]).astype(np.float32)
    int8 = converted(nn.Sequential(nn.Conv2D(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                                   nn.Conv2D(8, 16, 3, padding=1), nn.ReLU(), nn.Flatten(),
                                   nn.Linear(256, 5)), x)
    prefix = str(tmp_path / "cnn")
    skiff.jit.save(int8, prefix, input_spec=[InputSpec([3, 1, 8, 8], "float32", "x")])
    built = skiff.jit.compile(prefix, str(tmp_path / "out"), target=target)
    source = open(built["source"]).read()
    assert "quantized_conv2d" in source and "quantized_matmul" in source
    (name,), (out_name,) = built["inputs"], built["outputs"]
    np.save(tmp_path / "x.npy", x)
    subprocess.run([built["executable"], "--in", f"{name}={tmp_path / 'x.npy'}", "--out",
                    str(tmp_path / "res")], check=True, capture_output=True, timeout=120)
    want = skiff.jit.load(prefix)(skiff.to_tensor(x)).numpy()
    np.testing.assert_allclose(np.load(tmp_path / "res" / f"{out_name}.npy"), want, rtol=1e-6,
                               atol=1e-6)
