"""A converted (int8) model exported to ONNX: its quantization ops become QuantizeLinear /
DequantizeLinear nodes (int8 weights as int8 initializers), the model passes onnx.checker
and ONNX Runtime computes what skiff computes."""
import numpy as np
import pytest

import skiff
import skiff.nn as nn
from skiff.quantization import PTQ, QuantConfig
from skiff.quantization.observers import AbsmaxObserver, PerChannelAbsmaxObserver
from skiff.static import InputSpec

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def int8_cnn():
    skiff.seed(0)
    model = nn.Sequential(nn.Conv2D(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(),
                          nn.Linear(4 * 6 * 6, 5))
    x = np.random.default_rng(0).standard_normal([16, 1, 6, 6]).astype(np.float32)
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(model)
    with skiff.no_grad():
        observed(skiff.to_tensor(x))
    return ptq.convert(observed), x


@pytest.mark.parametrize("opset", [13, 17])
def test_int8_model_runs_in_onnx_runtime(tmp_path, opset):
    model, x = int8_cnn()
    path = skiff.onnx.export(model, str(tmp_path / "int8"), opset_version=opset,
                             input_spec=[InputSpec([None, 1, 6, 6], "float32", "x")])
    proto = onnx.load(path)
    onnx.checker.check_model(proto, full_check=True)
    kinds = [node.op_type for node in proto.graph.node]
    assert kinds.count("QuantizeLinear") == 2 and kinds.count("DequantizeLinear") == 4
    int8_weights = [t for t in proto.graph.initializer
                    if t.data_type == onnx.TensorProto.INT8 and len(t.dims) >= 2]
    assert len(int8_weights) == 2
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    got = session.run(None, {session.get_inputs()[0].name: x})[0]
    with skiff.no_grad():
        want = model(skiff.to_tensor(x)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
