"""Complex tensors against Paddle (and numpy): creation and conversion, printing, item,
casts, arithmetic with promotion, the complex functions and their gradients in Paddle's
convention (dL/da + i dL/db)."""
import numpy as np
import paddle
import pytest

import skiff


def both(fn):
    """fn run with skiff and with Paddle: (skiff result, paddle result)."""
    return fn(skiff), fn(paddle)


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a.numpy() if hasattr(a, "numpy") else a),
                               np.asarray(b.numpy() if hasattr(b, "numpy") else b),
                               rtol=tol, atol=tol)


def test_to_tensor_infers_and_round_trips():
    s, p = both(lambda m: m.to_tensor([[1 + 1j, 2], [3 + 2j, 4]]))
    assert s.dtype == "complex64" and str(p.dtype).endswith("complex64")
    close(s, p)
    s, p = both(lambda m: m.to_tensor(np.array([1 + 2j, 3j])))
    assert s.dtype == skiff.complex128 and s.numpy().dtype == np.complex128
    assert skiff.to_tensor(1 + 1j).item() == 1 + 1j
    assert isinstance(skiff.to_tensor(1 + 1j).item(), complex)
    assert skiff.to_tensor(1, dtype="complex128").element_size() == 16
    assert skiff.to_tensor(1, dtype="complex64").element_size() == 8
    assert "complex64" in repr(skiff.to_tensor([1 + 2j]))


def test_cast_between_real_and_complex():
    s, p = both(lambda m: m.to_tensor([1 + 2j, -3.5 - 4j]).astype("float32"))
    close(s, p)
    s, p = both(lambda m: m.to_tensor([1.5, 2.0]).astype("complex128"))
    assert s.dtype == "complex128"
    close(s, p)


def test_arithmetic_promotes_and_broadcasts():
    def f(m):
        x = m.to_tensor([-2.0, -1.0, 0.0, 1.0]).unsqueeze(-1)
        y = m.to_tensor([-2.0, -1.0, 0.0, 1.0])
        z = x + 1j * y
        return z, z * z - z / (z + 3), 2 * z + 1
    for a, b in zip(*both(f)):
        assert a.dtype == "complex64"
        close(a, b, 1e-5)
    s, p = both(lambda m: m.to_tensor([1 + 1j], dtype="complex128") + m.to_tensor([2.0]))
    assert s.dtype == "complex128"
    close(s, p)


@pytest.mark.parametrize("name", ["real", "imag", "conj", "angle", "abs", "sgn", "as_real",
                                  "is_complex", "isreal", "is_integer"])
def test_functions_match_paddle(name):
    data = [[3 + 4j, 7 - 24j, 0, 1 + 2j], [6 + 8j, 3, 0, -2]]
    s, p = both(lambda m: getattr(m, name)(m.to_tensor(data)))
    if isinstance(s, bool):
        assert s == p
    else:
        close(s, p, 1e-6)


def test_complex_as_complex_polar_vander():
    s, p = both(lambda m: m.complex(m.arange(2, dtype="float32").unsqueeze(-1),
                                    m.arange(3, dtype="float32")))
    close(s, p)
    s, p = both(lambda m: m.as_complex(m.arange(12, dtype="float32").reshape([2, 3, 2])))
    close(s, p)
    s, p = both(lambda m: m.polar(m.to_tensor([1.0, 2.0], dtype="float64"),
                                  m.to_tensor([np.pi / 2, 5 * np.pi / 4], dtype="float64")))
    assert s.dtype == "complex128"
    close(s, p, 1e-12)
    s, p = both(lambda m: m.vander(m.complex(m.to_tensor([2.0, 4.0]), m.to_tensor([1.0, 3.0]))))
    close(s, p, 1e-5)


def test_sum_mean_matmul_reshape_slice():
    rng = np.random.default_rng(0)
    a = (rng.normal(size=(3, 4)) + 1j * rng.normal(size=(3, 4))).astype(np.complex64)
    b = (rng.normal(size=(4, 2)) + 1j * rng.normal(size=(4, 2))).astype(np.complex64)

    def f(m):
        x, y = m.to_tensor(a), m.to_tensor(b)
        return (x.sum(), m.mean(x, axis=0), m.matmul(x, y), x.reshape([2, 6]), x.T, x[1:, ::2],
                m.concat([x, x], axis=0))
    for s, p in zip(*both(f)):
        close(s, p, 1e-5)


def grads(m, fn, data):
    x = m.to_tensor(data, stop_gradient=False)
    fn(m, x).backward()
    return x.grad


@pytest.mark.parametrize("fn", [
    lambda m, x: m.abs(x).sum(),
    lambda m, x: m.real(x * x).sum(),
    lambda m, x: m.imag(m.conj(x)).sum(),
    lambda m, x: m.angle(x).sum(),
    lambda m, x: m.abs(x / (x + 2) - 3 * x).sum(),
    lambda m, x: m.abs(m.as_real(x)).sum(),
    lambda m, x: m.abs(x[0:2] * x[1:3]).mean(),
])
def test_gradients_match_paddle(fn):
    data = [1 + 2j, -0.5 + 0.25j, 3 - 1j]
    close(grads(skiff, fn, data), grads(paddle, fn, data), 1e-5)


def test_gradient_to_real_parts():
    def f(m):
        a = m.to_tensor([1.0, 2.0], stop_gradient=False)
        b = m.to_tensor([3.0, 4.0], stop_gradient=False)
        m.abs(m.complex(a, b) * (a + 1j * b)).sum().backward()
        return a.grad, b.grad
    for s, p in zip(*both(f)):
        close(s, p, 1e-5)


def test_errors_name_the_problem():
    with pytest.raises(TypeError, match="as_real"):
        skiff.as_real(skiff.to_tensor([1.0]))
    with pytest.raises(ValueError, match="last dim must be 2"):
        skiff.as_complex(skiff.to_tensor([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="complex"):
        skiff.complex(skiff.to_tensor([1.0]), skiff.to_tensor([1.0], dtype="float64"))
    with pytest.raises(skiff.Error, match="no kernel for complex64"):
        skiff.maximum(skiff.to_tensor([1j]), skiff.to_tensor([2j]))


def test_eigh_of_hermitian_matrices():
    rng = np.random.default_rng(3)
    a = rng.normal(size=(2, 3, 3)) + 1j * rng.normal(size=(2, 3, 3))
    a = a + np.conj(np.swapaxes(a, -1, -2))
    for uplo in ("L", "U"):
        s, p = both(lambda m: m.linalg.eigvalsh(m.to_tensor(a), UPLO=uplo))
        assert s.dtype == "float64"
        close(s, p, 1e-10)
        w, v = skiff.linalg.eigh(skiff.to_tensor(a), UPLO=uplo)
        v = v.numpy()
        np.testing.assert_allclose(a @ v, v * w.numpy()[..., None, :], atol=1e-10)
    with pytest.raises(TypeError, match="eigvalsh"):
        skiff.linalg.eigvalsh(skiff.to_tensor([[1, 2], [2, 1]]))


@pytest.mark.parametrize("fn", [
    lambda m, x: m.abs(m.gather(x, m.to_tensor([2, 0, 2]))).sum(),
    lambda m, x: m.abs(m.expand(x.unsqueeze(0), [2, 3]) * m.tile(x, [2]).reshape([2, 3])).sum(),
    lambda m, x: m.abs(m.stack([x, x * 2]).transpose([1, 0])).sum(),
    lambda m, x: m.abs(x[::-2]).sum(),
])
def test_gradients_through_moving_ops(fn):
    data = [1 + 2j, -0.5 + 0.25j, 3 - 1j]
    close(grads(skiff, fn, data), grads(paddle, fn, data), 1e-5)
