"""linalg.eig and eigvals: eigenpairs of general matrices, against numpy and Paddle."""
import numpy as np
import paddle
import pytest

import skiff


@pytest.mark.parametrize("dtype, want", [("float32", skiff.complex64), ("float64", skiff.complex128),
                                         ("complex128", skiff.complex128)])
def test_eigenpairs_satisfy_a_v_equals_v_w(dtype, want):
    rng = np.random.RandomState(0)
    a = rng.randn(3, 4, 4)
    if dtype.startswith("complex"):
        a = a + 1j * rng.randn(3, 4, 4)
    a = a.astype(dtype)
    w, v = skiff.linalg.eig(skiff.to_tensor(a))
    assert w.dtype == want and v.dtype == want and w.shape == [3, 4]
    w, v = w.numpy(), v.numpy()
    tol = 1e-3 if dtype == "float32" else 1e-9
    np.testing.assert_allclose(a @ v, v * w[:, None, :], atol=tol)
    np.testing.assert_allclose(np.sort_complex(skiff.linalg.eigvals(skiff.to_tensor(a)).numpy()),
                               np.sort_complex(np.linalg.eigvals(a)), atol=tol)


def test_paddle_example_gives_paddles_vectors():
    x = [[1.6707249, 7.2249975, 6.5045543], [9.956216, 8.749598, 6.066444],
         [4.4251957, 1.7983172, 0.370647]]
    w, v = skiff.linalg.eig(skiff.to_tensor(x))
    pw, pv = paddle.linalg.eig(paddle.to_tensor(x))
    np.testing.assert_allclose(w.numpy(), pw.numpy(), rtol=1e-4)
    np.testing.assert_allclose(v.numpy(), pv.numpy(), atol=1e-4)


def test_eig_needs_square_matrices():
    with pytest.raises(skiff.Error, match="eig: x must be a batch of square matrices"):
        skiff.linalg.eig(skiff.ones([2, 3]))
