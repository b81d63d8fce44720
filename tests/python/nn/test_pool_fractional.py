"""fractional_max_pool2d / 3d and FractionalMaxPool2D / 3D
(skiff/nn/functional/pool_fractional.py) against Paddle with a given random_u: values,
masks and gradients; a random u; errors."""
import numpy as np
import pytest

import skiff
import skiff.nn.functional as F

from paddle_pair import assert_same, run_both

paddle = pytest.importorskip("paddle")

RNG = np.random.default_rng(5)

CASES = [
    ("fractional_max_pool2d", (2, 3, 11, 9), dict(output_size=[4, 3], random_u=0.37)),
    ("fractional_max_pool2d", (2, 3, 11, 9), dict(output_size=3, kernel_size=2, random_u=0.8)),
    ("fractional_max_pool2d", (1, 2, 32, 32), dict(output_size=[5, None], random_u=0.05)),
    ("fractional_max_pool3d", (1, 2, 7, 9, 8), dict(output_size=[3, 4, None], random_u=0.55)),
    ("fractional_max_pool3d", (1, 2, 7, 9, 8),
     dict(output_size=3, kernel_size=[2, 3, 2], random_u=0.15)),
]


@pytest.mark.parametrize("name,shape,kwargs", CASES)
def test_matches_paddle(name, shape, kwargs):
    x = RNG.standard_normal(shape).astype("float32")
    mine, ref = run_both(paddle, name, [x], grads=(0,), return_mask=True, **kwargs)
    assert_same(mine, ref, rtol=0, atol=0)


def test_window_placement_over_many_sizes():
    rng = np.random.default_rng(0)
    for _ in range(40):
        w = int(rng.integers(2, 30))
        out = int(rng.integers(1, w + 1))
        kernel = [None, 1, 2, 3][int(rng.integers(0, 4))]
        if kernel and (w < out - 1 + kernel or out == 1):
            continue
        x = rng.permutation(2 * w).astype("float32").reshape(1, 1, 2, w)
        kw = dict(output_size=[1, out], kernel_size=None if kernel is None else [1, kernel],
                  random_u=float(rng.uniform(0.01, 0.99)), return_mask=True)
        mine, ref = run_both(paddle, "fractional_max_pool2d", [x], **kw)
        assert_same(mine, ref, rtol=0, atol=0)


def test_layers_and_random_u():
    x = skiff.rand([2, 3, 32, 32])
    layer = skiff.nn.FractionalMaxPool2D(output_size=[2, 3], return_mask=True)
    out, mask = layer(x)
    assert out.shape == [2, 3, 2, 3] and mask.shape == [2, 3, 2, 3]
    assert str(mask.dtype).endswith("int32")
    flat = x.numpy().reshape(2, 3, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, mask.numpy().reshape(2, 3, -1),
                                                     axis=2).reshape(2, 3, 2, 3), out.numpy())
    out3 = skiff.nn.FractionalMaxPool3D(output_size=3, kernel_size=2)(skiff.rand([2, 3, 8, 9,
                                                                                 9]))
    assert out3.shape == [2, 3, 3, 3, 3]
    assert repr(skiff.nn.FractionalMaxPool2D(output_size=3)) == \
        "FractionalMaxPool2D(output_size=3, return_mask=False)"


def test_errors():
    x = skiff.rand([1, 1, 4, 4])
    with pytest.raises(ValueError, match="random_u"):
        F.fractional_max_pool2d(x, 2, random_u=1.5)
    with pytest.raises(ValueError, match="too small"):
        F.fractional_max_pool2d(x, 3, kernel_size=3)
    with pytest.raises(ValueError, match="smaller than the output"):
        F.fractional_max_pool2d(x, 5)
    with pytest.raises(ValueError, match="4-D"):
        F.fractional_max_pool2d(skiff.rand([1, 4, 4]), 2)
    with pytest.raises(ValueError, match="output_size"):
        F.fractional_max_pool3d(skiff.rand([1, 1, 4, 4, 4]), [2, 2])
