"""Printed programs and variables carry what Paddle 3.3.1's printing shows (value numbers,
attributes, dtypes and shapes in the same places): the numbers and dtype names of the
text are compared with Paddle's for the same program."""
import re

import paddle as real_paddle
import pytest

import skiff

_TOKEN = re.compile(r"\b(?:b?float\d+|u?int\d+|bool)\b|(?<![\w.])[-+]?\d+(?:\.\d*)?(?![\w])")


def _tokens(text):
    return _TOKEN.findall(text)


def _printed(paddle, build):
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            shown = build(paddle)
        return shown if shown is not None else str(main)
    finally:
        paddle.disable_static()


def _add(paddle):
    x = paddle.static.data(name="x", shape=[100, 100], dtype="float32")
    y = paddle.static.data(name="y", shape=[100, 100], dtype="int32")
    paddle.add(x, paddle.cast(y, "float32"))


def _fc(paddle):
    x = paddle.static.data(name="x", shape=[-1, 784], dtype="float32")
    paddle.static.data(name="y", shape=[-1, 1], dtype="int32")  # declared, unused
    paddle.static.nn.fc(name="fc", x=x, size=10, activation="relu")


@pytest.mark.parametrize("build", [_add, _fc])
def test_program_text_has_paddles_numbers(build):
    ours, theirs = _printed(skiff, build), _printed(real_paddle, build)
    assert _tokens(ours) == _tokens(theirs)
    assert ours.startswith("{\n") and ours.endswith("}\n")


def _values(paddle):
    x = paddle.static.data(name="x", shape=[2, 3], dtype="float32")
    values, indices = paddle.topk(x, 2)
    out = paddle.static.nn.fc(x=x, size=1, num_flatten_dims=1)
    return "\n".join(repr(v) for v in (x, values, indices, out))


def test_variable_repr_names_its_defining_output():
    ours, theirs = _printed(skiff, _values), _printed(real_paddle, _values)
    assert _tokens(ours) == _tokens(theirs)
    assert [line.split(",")[2] for line in ours.splitlines()] == \
        [line.split(",")[2] for line in theirs.splitlines()]  # the types
    assert "define_op_name=top_k, index=1" in ours and ours.splitlines()[0].endswith("name=x)")


def test_sub_blocks_nest_under_their_op():
    def build(paddle):
        x = paddle.static.data(name="x", shape=[2, 3], dtype="float32")
        paddle.static.nn.cond(x.sum() > 0, lambda: x * 2, lambda: x - 1)
    text = _printed(skiff, build)
    lines = text.splitlines()
    opened = [k for k, line in enumerate(lines) if line.endswith("{") and '"conditional_block"'
              in line]
    assert len(opened) == 2
    for k in opened:
        assert lines[k + 1].startswith(" " * 8) and lines[k + 2].startswith(" " * 8)
    assert text.count("{\n") == 3 and "bias:-1" in text  # x - 1 shows its bias


def test_details_keep_skiffs_own_form():
    def build(paddle):
        x = paddle.static.data(name="x", shape=[2], dtype="float32")
        paddle.exp(x)
        return paddle.static.default_main_program().to_string(True, with_details=True)
    text = _printed(skiff, build)
    assert text.startswith("block 0 (parent -1):") and "test_program_text.py:" in text
