"""nn behaviour that follows Paddle 3.x: silu's inplace argument, gelu's approximate as a
string, Sequential.append/insert/extend, named_sublayers(remove_duplicate=), the
Orthogonal, Bilinear and Dirac initializers, Assign's shape, cross_entropy's float
labels, and save/load through a file object; values (and gradients) vs paddle."""
import io

import numpy as np
import pytest

import skiff

paddle = pytest.importorskip("paddle")

X = np.array([0.5, -1.5, 2.0, -0.25], "float32")


def _grad(lib, fn, x):
    t = lib.to_tensor(x, stop_gradient=False)
    out = fn(lib, t)
    out.sum().backward()
    return out.numpy(), t.grad.numpy()


@pytest.mark.parametrize("fn", [
    lambda lib, t: lib.nn.functional.gelu(t, "none"),
    lambda lib, t: lib.nn.functional.gelu(t, "tanh"),
    lambda lib, t: lib.nn.GELU("none")(t),
    lambda lib, t: lib.nn.GELU("tanh")(t),
    lambda lib, t: lib.nn.functional.silu(t, False),
    lambda lib, t: lib.nn.SiLU()(t),
])
def test_activation_arguments(fn):
    for got, want in zip(_grad(skiff, fn, X), _grad(paddle, fn, X)):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_silu_inplace_and_gelu_checks_its_string():
    for lib in (skiff, paddle):
        x = lib.to_tensor(X)
        lib.nn.functional.silu(x, True)
        np.testing.assert_allclose(x.numpy(), X / (1 + np.exp(-X)), rtol=1e-6)
    with pytest.raises(ValueError, match="approximate"):
        skiff.nn.functional.gelu(skiff.to_tensor(X), "bad")


def _names(lib, **kw):
    lin = lib.nn.Linear(2, 2)
    seq = lib.nn.Sequential(lin, lib.nn.Sequential(lin, lib.nn.ReLU()))
    return [n for n, _ in seq.named_sublayers(**kw)]


def test_named_sublayers_remove_duplicate():
    for kw in ({}, {"remove_duplicate": False}, {"include_self": True, "remove_duplicate": False}):
        assert _names(skiff, **kw) == _names(paddle, **kw)


def test_sequential_append_insert_extend():
    def build(lib):
        seq = lib.nn.Sequential(lib.nn.ReLU())
        assert seq.append(lib.nn.Tanh()) is seq
        seq.insert(0, lib.nn.Sigmoid()).insert(-1, lib.nn.Softsign())
        seq.extend([lib.nn.ReLU6()])
        return [type(layer).__name__ for layer in seq], list(seq._sub_layers)
    assert build(skiff) == build(paddle)


@pytest.mark.parametrize("init,shape", [("Bilinear()", [2, 3, 4, 4]), ("Bilinear()", [1, 1, 3, 3]),
                                        ("Dirac()", [4, 2, 3]), ("Dirac(groups=2)", [4, 3, 3, 3]),
                                        ("Dirac()", [2, 3, 1, 3, 3])])
def test_deterministic_initializers_match_paddle(init, shape):
    def weight(lib):
        made = eval("lib.nn.initializer." + init, {"lib": lib})
        return lib.create_parameter(shape, "float32", default_initializer=made).numpy()
    np.testing.assert_array_equal(weight(skiff), weight(paddle))


@pytest.mark.parametrize("shape,gain", [([3, 5], 2.0), ([6, 2, 2], 1.0), ([4, 4], 0.5)])
def test_orthogonal_is_orthogonal_as_paddles(shape, gain):
    for lib in (skiff, paddle):
        init = lib.nn.initializer.Orthogonal(gain)
        w = lib.create_parameter(shape, "float32", default_initializer=init).numpy()
        m = w.reshape(shape[0], -1)
        gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
        np.testing.assert_allclose(gram, gain * gain * np.eye(len(gram)), atol=1e-5)


@pytest.mark.parametrize("value", [np.ones([3]), np.arange(3.0).reshape(1, 3),
                                   np.arange(6.0).reshape(3, 2), [[1.0, 2.0, 3.0]]])
def test_assign_gives_the_parameter_its_value_and_shape(value):
    def weight(lib):
        attr = lib.ParamAttr(initializer=lib.nn.initializer.Assign(value))
        return lib.nn.Linear(2, 3, weight_attr=attr).weight.numpy()
    got, want = weight(skiff), weight(paddle)
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("label,kw", [
    ([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], {"soft_label": True}),
    ([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], {"soft_label": True, "reduction": "none"}),
    ([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]], {"soft_label": True, "label_smoothing": 0.1}),
    ([[0.0], [2.0]], {}),
    ([0.0, 2.0], {"reduction": "sum"}),
])
def test_cross_entropy_float_labels(label, kw):
    x = np.random.RandomState(0).randn(2, 3).astype("float32")

    def run(lib, dtype="float32"):
        t = lib.to_tensor(x, stop_gradient=False)
        loss = lib.nn.functional.cross_entropy(t, lib.to_tensor(np.array(label, dtype)), **kw)
        if dtype == "int64" or kw.get("soft_label"):
            loss.sum().backward()
            return loss.numpy(), t.grad.numpy()
        return loss.numpy(), None
    soft = kw.get("soft_label")
    # Paddle reads float hard labels forward only; its gradients come from int64 ones
    want = run(paddle) if soft else (run(paddle)[0], run(paddle, "int64")[1])
    got = run(skiff) if soft else (run(skiff)[0], run(skiff, "int64")[1])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    if not soft:  # skiff's gradient through float labels is the int64 one
        t = skiff.to_tensor(x, stop_gradient=False)
        skiff.nn.functional.cross_entropy(t, skiff.to_tensor(np.array(label, "float32")),
                                          **kw).sum().backward()
        np.testing.assert_allclose(t.grad.numpy(), want[1], rtol=1e-5, atol=1e-6)


def test_save_and_load_through_file_objects():
    state = {"w": skiff.to_tensor([[1.0, 2.0]]), "step": 3, "names": ["a"]}
    buf = io.BytesIO()
    skiff.save(state, buf)
    buf.seek(0)
    back = skiff.load(buf)
    np.testing.assert_array_equal(back["w"].numpy(), [[1.0, 2.0]])
    assert back["step"] == 3 and back["names"] == ["a"]
    buf.seek(0)
    from_paddle = paddle.load(buf)  # the same bytes read by Paddle
    np.testing.assert_array_equal(np.asarray(from_paddle["w"]), [[1.0, 2.0]])
    buf = io.BytesIO()
    paddle.save({"v": paddle.to_tensor([4.0, 5.0])}, buf)
    buf.seek(0)
    np.testing.assert_array_equal(skiff.load(buf, return_numpy=True)["v"], [4.0, 5.0])
