"""What a to_static function shows of itself, as Paddle 3.3.1's (full_graph=True) does:
concrete_program (a property: the program of to_static's input_spec, else of the last
call), its main/startup programs, inputs and outputs, the converted `code`, rollback(),
and jit.save without an input_spec after a call. The expected values are Paddle's."""
import numpy as np
import pytest

import skiff as paddle
from skiff import nn
from skiff.static import InputSpec


def pair(x, y):
    z = x + y
    return z, x * 2


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x, flag=True):
        return self.fc(x)


def test_concrete_program_is_the_last_calls():
    sf = paddle.jit.to_static(pair)
    with pytest.raises(ValueError, match="input_spec"):  # nothing traced yet
        sf.concrete_program
    x = paddle.ones([2, 3])
    sf(x, x)
    cp = sf.concrete_program
    assert isinstance(cp.main_program, paddle.static.Program)
    assert isinstance(cp.startup_program, paddle.static.Program)
    assert cp.main_program is sf.main_program
    # Paddle: two data inputs, a tuple of two outputs; the flat lists alike
    assert len(cp.inputs) == 2 and isinstance(cp.outputs, tuple) and len(cp.outputs) == 2
    assert len(sf.inputs) == 2 and len(sf.outputs) == 2
    assert [list(v.shape) for v in sf.inputs] == [[2, 3], [2, 3]]
    sf(paddle.ones([4, 3]), paddle.ones([4, 3]))
    assert [list(v.shape) for v in sf.inputs] == [[4, 3], [4, 3]]
    sf(x, x)  # a cached program becomes the recent one again
    assert [list(v.shape) for v in sf.inputs] == [[2, 3], [2, 3]]


def test_specify_input_spec():
    sf = paddle.jit.to_static(pair)
    spec = [InputSpec([None, 3], "float32"), InputSpec([None, 3], "float32")]
    cp = sf.concrete_program_specify_input_spec(spec)
    assert [list(v.shape) for v in sf.inputs] == [[-1, 3], [-1, 3]]
    assert cp is sf.concrete_program  # the input_spec's program is now the recent one
    declared = paddle.jit.to_static(pair, input_spec=spec)
    assert [list(v.shape) for v in declared.inputs] == [[-1, 3], [-1, 3]]
    with pytest.raises(ValueError, match="conflicts"):
        declared.concrete_program_specify_input_spec([InputSpec([None, 4], "float32")] * 2)
    # a compatible input_spec gives to_static's program (Paddle: "higher priority")
    cp = declared.concrete_program_specify_input_spec([InputSpec([5, 3], "float32")] * 2)
    assert list(cp.flat_inputs()[0].shape) == [-1, 3]


def test_outputs_keep_the_structure():
    @paddle.jit.to_static
    def g(x, n):
        return [x + n, {"a": x}]

    x = paddle.ones([4, 3])
    g(x, 3)
    cp = g.concrete_program
    assert cp.inputs[1] == 3  # Python arguments stay in inputs (as Paddle's)
    assert isinstance(cp.outputs, list) and isinstance(cp.outputs[1], dict)
    assert len(g.inputs) == 1 and len(g.outputs) == 2

    @paddle.jit.to_static
    def one(x):
        return x + 1

    one(x)
    assert isinstance(one.concrete_program.outputs, list)  # Paddle: [Value]
    assert len(one.concrete_program.outputs) == 1


def test_layer_inputs_start_with_the_layer():
    net = paddle.jit.to_static(Net())
    net(paddle.ones([4, 3]))
    cp = net.forward.concrete_program
    assert cp.inputs[0] is net  # Paddle: (layer, x, ...)
    assert len(net.forward.inputs) == 1 and len(net.forward.outputs) == 1
    assert list(net.forward.outputs[0].shape) == [4, 2]


def test_code_is_the_converted_source():
    sf = paddle.jit.to_static(pair)
    assert isinstance(sf.code, str) and sf.code.startswith("def pair(x, y):")
    net = paddle.jit.to_static(Net())
    assert "def forward(self, x, flag=True):" in net.forward.code

    @paddle.jit.to_static
    def branch(x):
        if paddle.mean(x) > 0:
            x = x + 1
        return x

    assert "if paddle.mean(x) > 0" not in branch.code  # the `if` became a call


def test_rollback_restores_eager_calls():
    sf = paddle.jit.to_static(pair)
    assert sf.rollback() is pair and sf.dygraph_function is pair
    net = paddle.jit.to_static(Net())
    x = paddle.ones([4, 3])
    expected = net(x).numpy()
    eager = net.forward.rollback()
    assert eager.__func__ is Net.forward and eager.__self__ is net
    assert not isinstance(net.forward, paddle.jit.StaticFunction)
    np.testing.assert_allclose(net(x).numpy(), expected, rtol=1e-6)

    class Decorated(Net):
        @paddle.jit.to_static
        def forward(self, x, flag=True):
            return self.fc(x) * 2

    d = Decorated()
    d(x)
    d.forward.rollback()
    assert not isinstance(d.forward, paddle.jit.StaticFunction)
    assert isinstance(Decorated().forward, paddle.jit.StaticFunction)  # other instances keep it


def test_save_after_a_call_needs_no_input_spec(tmp_path):
    net = paddle.jit.to_static(Net())
    with pytest.raises(ValueError, match="input_spec"):  # Paddle: no program yet
        paddle.jit.save(net, str(tmp_path / "none"))
    x = paddle.rand([4, 3])
    expected = net(x).numpy()
    paddle.jit.save(net, str(tmp_path / "net"))
    loaded = paddle.jit.load(str(tmp_path / "net"))
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-6)
    with pytest.raises(ValueError, match="input_spec"):  # Paddle: never converted
        paddle.jit.save(Net(), str(tmp_path / "eager"))
