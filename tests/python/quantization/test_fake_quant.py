"""The quantization ops against PyTorch's: fake_quantize_per_tensor_affine and
fake_quantize_per_channel_affine (values and straight-through gradients, equal for the
same scales and zero points), quantize_per_tensor / per_channel integers; the same ops in a
static program; clear errors for a bad scale."""
import numpy as np
import pytest

import skiff
from skiff import static
from skiff.quantization import dequantize_linear, fake_quantize, quantize_linear

torch = pytest.importorskip("torch")


def data(shape, seed=0, spread=3.0):
    return (np.random.default_rng(seed).standard_normal(shape) * spread).astype(np.float32)


@pytest.mark.parametrize("scale, zero, qmin, qmax", [(0.05, 0, -128, 127), (0.02, 3, -128, 127),
                                                      (0.03, 128, 0, 255), (0.5, -2, -8, 7)])
def test_per_tensor_values_and_gradients_equal_torch(scale, zero, qmin, qmax):
    x = data([6, 7])
    cotangent = data([6, 7], seed=1)
    t = torch.tensor(x, requires_grad=True)
    want = torch.fake_quantize_per_tensor_affine(t, scale, zero, qmin, qmax)
    want.backward(torch.tensor(cotangent))
    s = skiff.to_tensor(x, stop_gradient=False)
    got = fake_quantize(s, skiff.to_tensor(np.array([scale], np.float32)),
                        skiff.to_tensor(np.array([zero], np.int32)), qmin, qmax)
    (got * skiff.to_tensor(cotangent)).sum().backward()
    np.testing.assert_array_equal(got.numpy(), want.detach().numpy())
    np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())
    assert 0 < (t.grad.numpy() == 0).mean() < 1  # some values fell outside the range


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_per_channel_values_and_gradients_equal_torch(axis):
    x = data([4, 5, 6])
    n = x.shape[axis]
    scales = np.linspace(0.01, 0.05, n).astype(np.float32)
    zeros = np.arange(n, dtype=np.int32) - 2
    t = torch.tensor(x, requires_grad=True)
    want = torch.fake_quantize_per_channel_affine(t, torch.tensor(scales), torch.tensor(zeros),
                                                  axis, -128, 127)
    want.sum().backward()
    s = skiff.to_tensor(x, stop_gradient=False)
    got = fake_quantize(s, skiff.to_tensor(scales), skiff.to_tensor(zeros), axis=axis)
    got.sum().backward()
    np.testing.assert_array_equal(got.numpy(), want.detach().numpy())
    np.testing.assert_array_equal(s.grad.numpy(), t.grad.numpy())


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")
def test_integers_equal_torch_quantize():
    x = data([3, 8])
    q = torch.quantize_per_tensor(torch.tensor(x), 0.04, 5, torch.qint8)
    got = quantize_linear(skiff.to_tensor(x), skiff.to_tensor(np.array([0.04], np.float32)),
                          skiff.to_tensor(np.array([5], np.int32)))
    assert got.dtype == skiff.int8
    np.testing.assert_array_equal(got.numpy(), q.int_repr().numpy())
    back = dequantize_linear(got, skiff.to_tensor(np.array([0.04], np.float32)),
                             skiff.to_tensor(np.array([5], np.int32)))
    np.testing.assert_allclose(back.numpy(), q.dequantize().numpy(), rtol=1e-6, atol=0)
    scales = np.array([0.01, 0.02, 0.03], np.float32)
    qc = torch.quantize_per_channel(torch.tensor(x), torch.tensor(scales, dtype=torch.float64),
                                    torch.zeros(3, dtype=torch.int64), 0, torch.quint8)
    got = quantize_linear(skiff.to_tensor(x), skiff.to_tensor(scales), axis=0, dtype="uint8")
    np.testing.assert_array_equal(got.numpy(), qc.int_repr().numpy())


def test_a_static_program_computes_what_eager_does():
    x = data([5, 4])
    scale = np.array([0.03], np.float32)
    eager_x = skiff.to_tensor(x, stop_gradient=False)
    (fake_quantize(eager_x, skiff.to_tensor(scale)) ** 2).sum().backward()
    skiff.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            xs = static.data("x", [5, 4], "float32")
            xs.stop_gradient = False
            s = static.data("s", [1], "float32")
            loss = (fake_quantize(xs, s) ** 2).sum()
            grad, = static.gradients([loss], [xs])
        out, g = static.Executor().run(main, feed={"x": x, "s": scale}, fetch_list=[loss, grad])
    finally:
        skiff.disable_static()
    np.testing.assert_allclose(g, eager_x.grad.numpy(), rtol=1e-6)


def test_a_bad_scale_fails_clearly():
    x = skiff.to_tensor(data([2, 3]))
    for bad in (0.0, -1.0, np.nan):
        with pytest.raises(skiff.Error, match="is not a positive finite number"):
            fake_quantize(x, skiff.to_tensor(np.array([bad], np.float32)))
    with pytest.raises(skiff.Error, match="one value per channel but X"):
        fake_quantize(x, skiff.to_tensor(np.ones(4, np.float32)), axis=1)
