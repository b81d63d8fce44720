"""skiff.onnx.export and `skiff export-onnx`: the MLP, W3's CNN, LSTM / GRU layers and
to_static functions with a Tensor-dependent while loop and if/else, written as ONNX,
pass onnx.checker and give skiff's outputs under ONNX Runtime (within 1e-5); an op
without a mapping is an error naming it and its source line."""
import os
import pathlib
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest

import skiff
import skiff.nn.functional as F
from skiff import nn
from skiff.static import InputSpec

TOL = 1e-5


def export(layer, tmp_path, spec, opset=17, name="model"):
    """The exported model (checked by onnx.checker) and its ONNX Runtime session."""
    path = skiff.onnx.export(layer, str(tmp_path / name), input_spec=spec, opset_version=opset)
    assert path == str(tmp_path / name) + ".onnx"
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    return model, ort.InferenceSession(path, providers=["CPUExecutionProvider"])


def outputs_match(layer, session, *arrays):
    """ONNX Runtime's outputs equal the layer's (run by skiff) within TOL."""
    feeds = {i.name: a for i, a in zip(session.get_inputs(), arrays)}
    got = session.run(None, feeds)
    want = layer(*[skiff.to_tensor(a) for a in arrays])
    want = list(want) if isinstance(want, (list, tuple)) else [want]
    flat = []
    for w in want:
        flat.extend(w if isinstance(w, (list, tuple)) else [w])
    assert len(got) == len(flat)
    for g, w in zip(got, flat):
        np.testing.assert_allclose(g, w.numpy(), rtol=TOL, atol=TOL)


def op_types(graph):
    """The op types of a graph's nodes and of every sub-graph's."""
    types = set()
    for node in graph.node:
        types.add(node.op_type)
        for a in node.attribute:
            if a.type == onnx.AttributeProto.GRAPH:
                types |= op_types(a.g)
    return types


def rand(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype("float32")


class MLP(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2, self.fc3 = nn.Linear(12, 32), nn.Linear(32, 32), nn.Linear(32, 5)
        self.norm = nn.LayerNorm(32)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = self.drop(F.gelu(self.norm(self.fc2(h))))
        return F.softmax(self.fc3(h), axis=-1)


class W3(nn.Layer):
    """W3's network: conv3x3(1->32)-relu-maxpool2, conv3x3(32->64)-relu-maxpool2, fc."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2D(1, 32, 3, padding=1)
        self.conv2 = nn.Conv2D(32, 64, 3, padding=1)
        self.pool = nn.MaxPool2D(2, 2)
        self.fc = nn.Linear(3136, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        return self.fc(skiff.flatten(x, 1))


@pytest.mark.parametrize("opset", [13, 17, 18, 20])
def test_mlp_at_each_opset(tmp_path, opset):
    mlp = MLP()
    mlp.eval()
    model, session = export(mlp, tmp_path, [InputSpec([None, 12], "float32", "x")], opset)
    assert model.opset_import[0].version == opset
    assert [i.name for i in model.graph.input] == ["x"]
    assert "Gemm" in op_types(model.graph)
    assert ("LayerNormalization" in op_types(model.graph)) == (opset >= 17)
    for batch in (1, 7):
        outputs_match(mlp, session, rand(batch, 12, seed=batch))


def test_w3_cnn(tmp_path):
    net = W3()
    net.eval()
    model, session = export(net, tmp_path, [InputSpec([None, 1, 28, 28], "float32", "image")])
    assert {"Conv", "MaxPool", "Relu", "Gemm"} <= op_types(model.graph)
    names = {t.name for t in model.graph.initializer}
    assert {p.name for p in net.parameters()} <= names
    outputs_match(net, session, rand(3, 1, 28, 28))


class ConvBlocks(nn.Layer):
    """Grouped, strided and dilated convolutions, batch norm, ceil-mode pooling
    (windows that start in the padding are dropped) and adaptive average pooling."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2D(4, 8, 3, stride=2, padding=1, groups=2)
        self.c2 = nn.Conv2D(8, 8, 3, padding=2, dilation=2)
        self.bn = nn.BatchNorm2D(8)
        self.avg = nn.AvgPool2D(2, 2, 1, ceil_mode=True)
        self.max = nn.MaxPool2D(3, 2, 1, ceil_mode=True)
        self.adaptive = nn.AdaptiveAvgPool2D(1)

    def forward(self, x):
        y = F.relu(self.bn(self.c2(self.c1(x))))
        return self.adaptive(self.max(self.avg(y))), self.max(y)


def test_conv_pool_and_batch_norm_variants(tmp_path):
    net = ConvBlocks()
    net.eval()
    # Non-trivial running statistics, so the normalization is visible.
    net.bn._mean._set_value(skiff.to_tensor(rand(8, seed=1)))
    net.bn._variance._set_value(skiff.to_tensor(np.abs(rand(8, seed=2)) + 0.5))
    model, session = export(net, tmp_path, [InputSpec([2, 4, 19, 17])])
    assert {"BatchNormalization", "AveragePool", "GlobalAveragePool"} <= op_types(model.graph)
    outputs_match(net, session, rand(2, 4, 19, 17))


def test_lstm_gru_and_simple_rnn(tmp_path):
    lstm = nn.LSTM(8, 16, num_layers=2)
    lstm.eval()
    model, session = export(lstm, tmp_path, [InputSpec([None, 5, 8])], name="lstm")
    assert {"MatMul", "LSTM"} <= op_types(model.graph)  # one ONNX LSTM per skiff lstm layer
    outputs_match(lstm, session, rand(3, 5, 8))
    gru = nn.GRU(6, 7, direction="bidirect")
    gru.eval()
    model, session = export(gru, tmp_path, [InputSpec([None, 4, 6])], name="gru")
    assert "GRU" in op_types(model.graph)
    outputs_match(gru, session, rand(2, 4, 6))
    for activation in ("tanh", "relu"):
        simple = nn.SimpleRNN(6, 5, num_layers=2, direction="bidirect", activation=activation)
        simple.eval()
        model, session = export(simple, tmp_path, [InputSpec([None, 4, 6])],
                                name=f"simple_{activation}")
        assert "RNN" in op_types(model.graph)
        outputs_match(simple, session, rand(2, 4, 6))


class BiLstmWithLengths(nn.Layer):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(5, 4, direction="bidirect")

    def forward(self, x, lengths):
        return self.rnn(x, sequence_length=lengths)[0]


def test_lstm_with_sequence_lengths_in_both_directions(tmp_path):
    """Past a sequence's length the outputs are zeros and the reverse direction starts at
    the sequence's own last step, in ONNX Runtime as in skiff."""
    layer = BiLstmWithLengths()
    layer.eval()
    _, session = export(layer, tmp_path, [InputSpec([None, 6, 5]), InputSpec([None], "int64")],
                        name="lstm_lengths")
    outputs_match(layer, session, rand(3, 6, 5), np.array([6, 2, 4], dtype="int64"))


def test_lstm_over_sequences_of_any_length(tmp_path):
    """An unknown number of steps: the lstm layer op runs them all, exported as an LSTM
    node over a sequence of any length."""
    lstm = nn.LSTM(8, 6, num_layers=2)
    lstm.eval()
    model, session = export(lstm, tmp_path, [InputSpec([None, None, 8])], name="lstm_any")
    assert "LSTM" in op_types(model.graph)
    for steps in (1, 4, 9):
        outputs_match(lstm, session, rand(3, steps, 8, seed=steps))


@skiff.jit.to_static
def doubling_loop(x):
    steps = skiff.zeros([1], "int64")
    while x.sum() < 100.0:
        x = x * 2.0 + 1.0
        steps = steps + 1
    return x, steps


def test_while_loop_on_a_tensor(tmp_path):
    model, session = export(doubling_loop, tmp_path, [InputSpec([None, 3])])
    assert "Loop" in op_types(model.graph)
    # Different inputs take different trip counts through the same model.
    for x in (np.full((2, 3), 0.1, "float32"), np.full((1, 3), 30.0, "float32"),
              np.full((4, 3), 200.0, "float32")):
        outputs_match(doubling_loop, session, x)


@skiff.jit.to_static
def branches(x):
    if x.mean() > 0:
        y = skiff.tanh(x) * 3.0
    else:
        y = x * x - 1.0
    return y + 1.0


def test_if_else_on_a_tensor(tmp_path):
    model, session = export(branches, tmp_path, [InputSpec([None, 4])])
    ifs = [n for n in model.graph.node if n.op_type == "If"]
    assert len(ifs) == 1  # the if/else is one If with both blocks as branches
    outputs_match(branches, session, np.abs(rand(2, 4)))
    outputs_match(branches, session, -np.abs(rand(3, 4)))


@skiff.jit.to_static
def nested(x, n):
    total = skiff.zeros([1], "float32")
    i = skiff.zeros([1], "int64")
    while i < n:
        j = skiff.zeros([1], "int64")
        while j < i:
            if x.sum() > total.sum():
                total = total + x.mean()
            else:
                total = total - 0.5
            j = j + 1
        i = i + 1
    return total, i


def test_nested_loops_and_branches(tmp_path):
    model, session = export(nested, tmp_path, [InputSpec([None, 3]), InputSpec([1], "int64")])
    loop = next(n for n in model.graph.node if n.op_type == "Loop")
    assert "Loop" in op_types(loop.attribute[0].g)  # the inner while is inside the body
    for n, x in ((0, rand(2, 3)), (1, rand(1, 3)), (5, np.abs(rand(2, 3)))):
        outputs_match(nested, session, x, np.array([n], "int64"))


@skiff.jit.to_static
def collect(x):
    rows = []
    while x.sum() < 40.0:
        x = x + 1.0
        rows.append(x * 2.0)
    return skiff.stack(rows)


def test_list_grown_in_a_loop_is_a_sequence(tmp_path):
    model, session = export(collect, tmp_path, [InputSpec([2, 3])])
    assert {"Loop", "SequenceInsert", "ConcatFromSequence"} <= op_types(model.graph)
    outputs_match(collect, session, np.full((2, 3), 0.5, "float32"))


@skiff.jit.to_static
def paddle_axis(x, y):
    from skiff.framework.core import apply
    return apply("elementwise_add", x, y, attrs={"axis": 1})


def test_paddle_axis_broadcasting(tmp_path):
    _, session = export(paddle_axis, tmp_path, [InputSpec([2, 3, 4]), InputSpec([3])])
    outputs_match(paddle_axis, session, rand(2, 3, 4), rand(3, seed=5))


@skiff.jit.to_static
def unmapped(x):
    return x + skiff.rand([2, 3])  # random draws have no ONNX mapping


def test_an_op_without_mapping_names_it_and_its_line(tmp_path):
    with pytest.raises(skiff.Error) as info:
        skiff.onnx.export(unmapped, str(tmp_path / "bad"), input_spec=[InputSpec([2, 3])])
    message = str(info.value)
    assert "uniform_random" in message
    assert "test_onnx_export.py:" in message
    assert "no ONNX mapping" in message
    assert not (tmp_path / "bad.onnx").exists()


def test_opset_outside_the_supported_range(tmp_path):
    with pytest.raises(ValueError):
        skiff.onnx.export(MLP(), str(tmp_path / "m"), input_spec=[InputSpec([1, 12])],
                          opset_version=9)


def skiff_binary():
    checkout = pathlib.Path(__file__).resolve().parents[3]
    build = pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", checkout / "build"))
    return build / "bin" / "skiff"


def test_cli_names_an_unmapped_op(tmp_path):
    skiff.jit.save(unmapped, str(tmp_path / "bad"), input_spec=[InputSpec([2, 3])])
    run = subprocess.run([str(skiff_binary()), "export-onnx", str(tmp_path / "bad.skmodel"),
                          "-o", str(tmp_path / "bad.onnx")], capture_output=True, text=True)
    assert run.returncode == 1
    assert "uniform_random" in run.stderr
    assert "test_onnx_export.py:" in run.stderr
    assert not (tmp_path / "bad.onnx").exists()
    usage = subprocess.run([str(skiff_binary()), "export-onnx", str(tmp_path / "bad.skmodel")],
                           capture_output=True, text=True)
    assert usage.returncode == 2 and "missing -o" in usage.stderr


def test_cli_exports_a_saved_model(tmp_path):
    net = W3()
    net.eval()
    skiff.jit.save(net, str(tmp_path / "w3"), input_spec=[InputSpec([None, 1, 28, 28])])
    out = tmp_path / "w3.onnx"
    run = subprocess.run([str(skiff_binary()), "export-onnx", str(tmp_path / "w3.skmodel"),
                          "-o", str(out), "--opset", "18"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    model = onnx.load(str(out))
    onnx.checker.check_model(model, full_check=True)
    assert model.opset_import[0].version == 18
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    outputs_match(net, session, rand(2, 1, 28, 28))
