"""skiff.amp.auto_cast: matmul / linear / conv2d run on bfloat16 inputs (float32 sums)."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn.functional as F
from skiff.framework import core


def _bf16(a):
    return torch.from_numpy(a).bfloat16().float()


@pytest.fixture
def data():
    rng = np.random.default_rng(0)
    return rng.standard_normal((8, 32)).astype("float32"), \
        rng.standard_normal((32, 16)).astype("float32"), rng.standard_normal(16).astype("float32")


def test_matmul_and_linear_use_bfloat16_inputs(data):
    x, w, b = data
    tx, tw = _bf16(x), _bf16(w)
    ref = (tx.double() @ tw.double()).numpy()       # exact product of the rounded inputs
    with skiff.amp.auto_cast(dtype="bfloat16"):
        y = skiff.matmul(skiff.to_tensor(x), skiff.to_tensor(w))
        lin = F.linear(skiff.to_tensor(x), skiff.to_tensor(w), skiff.to_tensor(b))
    assert y.dtype == skiff.float32
    np.testing.assert_allclose(y.numpy(), ref, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(lin.numpy(), ref + b, rtol=1e-5, atol=1e-5)
    exact = x.astype(np.float64) @ w
    assert np.abs(y.numpy() - exact).max() > 1e-4      # the inputs really were rounded
    np.testing.assert_allclose(y.numpy(), exact, rtol=2e-2, atol=5e-2)
    out = skiff.matmul(skiff.to_tensor(x), skiff.to_tensor(w)).numpy()
    np.testing.assert_allclose(out, exact, rtol=1e-5, atol=1e-4)   # off again after the block
    assert core.mode.hooks == ()  # no hook left on the dispatch point


def test_conv2d_and_gradients():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 6, 6)).astype("float32")
    k = rng.standard_normal((4, 3, 3, 3)).astype("float32")
    xs, ks = skiff.to_tensor(x, stop_gradient=False), skiff.to_tensor(k, stop_gradient=False)
    with skiff.amp.auto_cast(dtype="bfloat16"):
        out = F.conv2d(xs, ks, padding=1)
    tx, tk = _bf16(x).requires_grad_(), _bf16(k).requires_grad_()
    ref = torch.nn.functional.conv2d(tx, tk, padding=1)
    assert out.dtype == skiff.float32
    np.testing.assert_allclose(out.numpy(), ref.detach().numpy(), rtol=1e-2, atol=2e-2)
    skiff.sum(out * out).backward()
    (ref * ref).sum().backward()
    assert xs.grad.dtype == skiff.float32
    np.testing.assert_allclose(xs.grad.numpy(), tx.grad.numpy(), rtol=3e-2, atol=0.3)


def test_black_list_and_disabled(data):
    x, w, _ = data
    exact = x.astype(np.float64) @ w
    for ctx in (skiff.amp.auto_cast(dtype="bfloat16", custom_black_list=["matmul_v2"]),
                skiff.amp.auto_cast(enable=False, dtype="bfloat16"),
                skiff.amp.auto_cast(level="O0")):
        with ctx:
            y = skiff.matmul(skiff.to_tensor(x), skiff.to_tensor(w))
        np.testing.assert_allclose(y.numpy(), exact, rtol=1e-5, atol=1e-4)


def test_static_program_records_casts(data):
    x, w, _ = data
    skiff.enable_static()
    try:
        main, startup = skiff.static.Program(), skiff.static.Program()
        with skiff.static.program_guard(main, startup):
            xv = skiff.static.data("x", [8, 32], "float32")
            wv = skiff.static.data("w", [32, 16], "float32")
            with skiff.amp.auto_cast(dtype="bfloat16"):
                y = skiff.matmul(xv, wv)
        types = [op.type for op in main.global_block().ops]
        assert types.count("cast") == 2 and "matmul" in types
        (out,) = skiff.static.Executor().run(main, feed={"x": x, "w": w}, fetch_list=[y])
    finally:
        skiff.disable_static()
    ref = (_bf16(x).double() @ _bf16(w).double()).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_float16_on_the_cpu_warns_and_runs_in_float32():
    # as Paddle on the CPU: float16 auto_cast makes no effect, with a warning
    layer = skiff.nn.Linear(3, 2)
    x = skiff.rand([4, 3])
    with pytest.warns(UserWarning, match="auto_cast.*float16"):
        with skiff.amp.auto_cast():
            y = layer(x)
            assert not skiff.amp.is_autocast_enabled()
    assert y.dtype == skiff.float32
    np.testing.assert_allclose(y.numpy(), layer(x).numpy(), rtol=0, atol=0)


def test_errors():
    with pytest.raises(ValueError, match="auto_cast.*level"):
        with skiff.amp.auto_cast(level="O3", dtype="bfloat16"):
            pass
    with pytest.raises(ValueError, match="auto_cast.*dtype"):
        with skiff.amp.auto_cast(dtype="int8"):
            pass
    with pytest.raises(ValueError, match="overlap"):
        with skiff.amp.auto_cast(dtype="bfloat16", custom_white_list=["matmul_v2"],
                                 custom_black_list=["matmul"]):
            pass
    assert core.mode.hooks == () and not skiff.amp.is_autocast_enabled()


def test_decorate():
    model = skiff.nn.Linear(3, 2)
    opt = skiff.optimizer.SGD(parameters=model.parameters())
    assert skiff.amp.decorate(model, level="O1", dtype="bfloat16") is model
    m, o = skiff.amp.decorate(model, opt, level="O1", dtype="bfloat16")
    assert m is model and o is opt and model.weight.dtype == skiff.float32
    assert skiff.amp.is_bfloat16_supported() and not skiff.amp.is_float16_supported()
