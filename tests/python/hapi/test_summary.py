"""skiff.summary and Model.summary against paddle.summary on the same network: the same
rows (layer type, input and output shapes, parameter counts) and totals."""
import re

import numpy as np
import pytest

import skiff

NETWORK = '''
class Net(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.features = paddle.nn.Sequential(
            paddle.nn.Conv2D(1, 4, 3, padding=1), paddle.nn.ReLU(), paddle.nn.MaxPool2D(2, 2))
        self.bn = paddle.nn.BatchNorm2D(4)
        self.fc = paddle.nn.Linear(64, 10)

    def forward(self, x):
        x = self.bn(self.features(x))
        return self.fc(paddle.flatten(x, 1))
'''


def build(module):
    namespace = {"paddle": module}
    exec(NETWORK, namespace)
    return namespace["Net"]()


ROW = re.compile(r"^\s*([A-Za-z0-9]+)-(\d+)\s+(\[\[.*?\]\])\s+(\[.*?\])\s+([\d,]+)\s*$")


def rows(text):
    """(type, input shapes, output shape, params) of every table row."""
    found = []
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            found.append((m.group(1), m.group(3), m.group(4), m.group(5)))
    return found


def totals(text):
    return [line for line in text.splitlines() if "params" in line or "(MB)" in line]


def test_summary_matches_paddle(paddle, capsys):
    theirs = paddle.summary(build(paddle), (2, 1, 8, 8))
    paddle_text = capsys.readouterr().out
    ours = skiff.summary(build(skiff), (2, 1, 8, 8))
    skiff_text = capsys.readouterr().out
    assert ours == {k: int(v) for k, v in theirs.items()}
    assert ours == {"total_params": 706, "trainable_params": 698}
    assert len(rows(skiff_text)) == 5
    assert rows(skiff_text) == rows(paddle_text)
    assert totals(skiff_text) == totals(paddle_text)


def test_unknown_batch_dims_become_one(capsys):
    net = skiff.nn.Linear(3, 4)
    assert skiff.summary(net, (None, 3)) == {"total_params": 16, "trainable_params": 16}
    text = capsys.readouterr().out
    assert rows(text) == [("Linear", "[[1, 3]]", "[1, 4]", "16")]


def test_two_inputs_with_dtypes_and_frozen_parameters(capsys):
    class Pair(skiff.nn.Layer):
        def __init__(self):
            super().__init__()
            self.emb = skiff.nn.Embedding(10, 3)
            self.fc = skiff.nn.Linear(3, 2)
            self.fc.weight.stop_gradient = True

        def forward(self, ids, scale):
            return self.fc(self.emb(ids)) * scale

    result = skiff.summary(Pair(), [(2, 5), (2, 5, 1)], dtypes=["int64", "float32"])
    assert result == {"total_params": 30 + 8, "trainable_params": 30 + 2}
    text = capsys.readouterr().out
    assert [r[0] for r in rows(text)] == ["Embedding", "Linear"]
    assert rows(text)[1][2] == "[2, 5, 2]"


def test_model_summary_uses_the_input_specs(capsys):
    class Spec:
        def __init__(self, shape, dtype="float32"):
            self.shape, self.dtype, self.name = shape, dtype, "x"

    model = skiff.Model(skiff.nn.Linear(6, 2), inputs=[Spec([None, 6])])
    assert model.summary() == {"total_params": 14, "trainable_params": 14}
    assert "[[1, 6]]" in capsys.readouterr().out
    with pytest.raises(ValueError):
        skiff.Model(skiff.nn.Linear(6, 2)).summary()


def test_summary_leaves_the_network_as_it_was():
    net = build(skiff)
    net.train()
    skiff.summary(net, (1, 1, 8, 8))
    assert net.training and net.bn.training
    out = net(skiff.to_tensor(np.ones((1, 1, 8, 8), np.float32)))
    assert out.shape == [1, 10]
    assert not net._forward_post_hooks and not net.fc._forward_post_hooks


LIST_AND_DICT_NETWORKS = '''
class ListNet(paddle.nn.Layer):
    def __init__(self):
        super().__init__()
        self.conv = paddle.nn.Conv2D(1, 2, 3, padding=1)
        self.fc = paddle.nn.Linear(32, 5)

    def forward(self, inputs):
        return self.fc(paddle.flatten(self.conv(inputs[0]), 1) + inputs[1])


class DictNet(ListNet):
    def forward(self, inputs):
        return self.fc(paddle.flatten(self.conv(inputs["image"]), 1) + inputs["bias"])
'''


def networks(module):
    namespace = {"paddle": module}
    exec(LIST_AND_DICT_NETWORKS, namespace)
    return namespace["ListNet"](), namespace["DictNet"]()


def without_row_numbers(text):
    """The printed lines with the per-type row numbers (Conv2D-3) taken out, as they count
    the layers made in the process so far (and so the spaces that centre them)."""
    return [" ".join(re.sub(r"([A-Za-z0-9]+)-\d+", r"\1-#", line).split()) or line
            for line in text.split("\n")]


@pytest.mark.parametrize("kind", ["list", "dict"])
def test_an_input_list_or_dict_goes_to_forward_as_one_argument(paddle, capsys, kind):
    rng = np.random.default_rng(0)
    image = rng.random([1, 1, 4, 4], dtype=np.float32)
    bias = rng.random([1, 32], dtype=np.float32)
    texts, results = [], []
    for lib in (paddle, skiff):
        net = networks(lib)[kind == "dict"]
        values = [lib.to_tensor(image), lib.to_tensor(bias)]
        given = values if kind == "list" else {"image": values[0], "bias": values[1]}
        results.append(lib.summary(net, input=given))
        texts.append(without_row_numbers(capsys.readouterr().out))
    assert texts[1] == texts[0]
    assert results[1] == results[0] == {"total_params": 20 + 165, "trainable_params": 185}
    assert all(type(v) is np.int64 for v in results[1].values())


def test_the_printed_table_is_paddles(paddle, capsys):
    paddle.summary(build(paddle), [(2, 1, 8, 8)], dtypes=["float32"])
    paddle_text = capsys.readouterr().out
    skiff.summary(build(skiff), [(2, 1, 8, 8)], dtypes=["float32"])
    assert without_row_numbers(capsys.readouterr().out) == without_row_numbers(paddle_text)


def test_an_input_of_the_wrong_kind_is_named():
    with pytest.raises(TypeError, match="input must be a Tensor"):
        skiff.summary(skiff.nn.Linear(2, 2), input=[[1.0, 2.0]])
