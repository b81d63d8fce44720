"""to_static of functions whose source cannot be found (made by exec, as at a prompt):
traced as written, run eagerly for inputs where tracing reads a Tensor's value, and an
error with full_graph=True. Values and gradients are compared with Paddle 3.3.1 running
the same exec'd code (its default, full_graph=False, translates bytecode)."""
import warnings

import numpy as np
import paddle as real_paddle
import pytest

import skiff

BRANCHY = """
@paddle.jit.not_to_static
def minus_one(x):
    return x - 1

@paddle.jit.to_static
def branchy(x):
    if paddle.mean(x) < 0:
        out = minus_one(x) * 3
    else:
        out = x + 1
    return out

@paddle.jit.to_static
def plain(x, y):
    z = paddle.tanh(x) * y + x.shape[0]
    return z.sum(axis=1), y * 2

@paddle.jit.to_static(input_spec=[paddle.static.InputSpec([None, 3], 'float32')])
def flatten(x):
    return x.reshape([x.shape[0] * x.shape[1]]) * 2
"""


def _namespace(module):
    namespace = {"paddle": module}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(BRANCHY, "<prompt>", "exec"), namespace)
    return namespace


@pytest.fixture(scope="module")
def spaces():
    return _namespace(skiff), _namespace(real_paddle)


def _run(ns, module, name, *arrays):
    xs = [module.to_tensor(a, stop_gradient=False) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = ns[name](*xs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    sum(o.sum() for o in outs).backward()
    return [o.numpy() for o in outs], [x.grad.numpy() for x in xs]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_tensor_condition_runs_eagerly_like_paddle(spaces, sign):
    x = sign * np.arange(1, 7, dtype="float32").reshape(2, 3)
    ours, theirs = _run(spaces[0], skiff, "branchy", x), _run(spaces[1], real_paddle, "branchy", x)
    np.testing.assert_allclose(ours[0][0], theirs[0][0], rtol=1e-6)
    np.testing.assert_allclose(ours[1][0], theirs[1][0], rtol=1e-6)


def test_the_eager_run_is_announced():
    ns = {"paddle": skiff}
    exec(compile("@paddle.jit.to_static\ndef f(x):\n    return x * 2 if x.sum() > 0 else x\n",
                 "<prompt>", "exec"), ns)
    with pytest.warns(UserWarning) as record:
        out = ns["f"](skiff.ones([2]))
    messages = [str(w.message) for w in record]
    assert any("traced as written" in m for m in messages)
    assert any("runs eagerly" in m for m in messages)
    np.testing.assert_array_equal(out.numpy(), [2.0, 2.0])
    with pytest.raises(skiff.Error, match="source is not available"):
        ns["f"].concrete_program


def test_traceable_function_becomes_a_program(spaces):
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3)).astype("float32"), rng.standard_normal((2, 3))
    y = y.astype("float32")
    ours, theirs = _run(spaces[0], skiff, "plain", x, y), _run(spaces[1], real_paddle, "plain", x, y)
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    program = spaces[0]["plain"].concrete_program.main_program
    assert any(op.type == "tanh" for op in program.global_block().ops)


def test_spec_dims_are_the_tensors_own_when_traced_as_written(spaces):
    x = np.arange(12, dtype="float32").reshape(4, 3)
    ours, theirs = _run(spaces[0], skiff, "flatten", x), _run(spaces[1], real_paddle, "flatten", x)
    np.testing.assert_array_equal(ours[0][0], theirs[0][0])
    np.testing.assert_array_equal(ours[1][0], theirs[1][0])


def test_full_graph_needs_the_source():
    code = "@paddle.jit.to_static(full_graph=True)\ndef f(x):\n    return x + 1\n"
    for module, error in ((skiff, skiff.Error), (real_paddle, OSError)):
        ns = {"paddle": module}
        exec(compile(code, "<prompt>", "exec"), ns)
        with pytest.raises(error, match="source"):
            ns["f"](module.ones([2]))


def test_layer_from_a_prompt_saves_its_traced_program(tmp_path):
    ns = {"paddle": skiff}
    exec(compile("class Net(paddle.nn.Layer):\n"
                 "    def __init__(self):\n"
                 "        super().__init__()\n"
                 "        self.fc = paddle.nn.Linear(3, 2)\n"
                 "    def forward(self, x):\n"
                 "        return paddle.nn.functional.relu(self.fc(x))\n",
                 "<prompt>", "exec"), ns)
    skiff.seed(3)
    net = ns["Net"]()
    x = skiff.randn([4, 3])
    expected = net(x).numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        static = skiff.jit.to_static(net)
        np.testing.assert_allclose(static(x).numpy(), expected, rtol=1e-6)
        skiff.jit.save(static, str(tmp_path / "net"),
                       input_spec=[skiff.static.InputSpec([None, 3], "float32")])
    loaded = skiff.jit.load(str(tmp_path / "net"))
    np.testing.assert_allclose(loaded(x).numpy(), expected, rtol=1e-6)


def test_untraceable_layer_from_a_prompt_cannot_be_saved(tmp_path):
    ns = {"paddle": skiff}
    exec(compile("class Gate(paddle.nn.Layer):\n"
                 "    def forward(self, x):\n"
                 "        return x * 2 if x.mean() > 0 else x\n", "<prompt>", "exec"), ns)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(skiff.Error, match="source is not available.*truth value"):
            skiff.jit.save(ns["Gate"](), str(tmp_path / "gate"),
                           input_spec=[skiff.static.InputSpec([2], "float32")])
