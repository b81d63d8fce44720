"""Warps and erasing (skiff/vision/transforms/geometric.py, warp_transforms.py) against
paddle.vision.transforms: 'nearest' warps equal PIL/Tensor results except for output pixels
whose source point falls within rounding of a pixel edge (<= 1% of pixels); 'bilinear' warps
equal the Tensor backend to 1e-5 away from a 3-pixel border (the two fill the border
differently); the random warps and RandomErasing draw as Paddle's."""
import numpy as np
import pytest

import skiff
from skiff.vision import transforms as T
from skiff.vision.transforms import functional as F

from image_reference import assert_mostly_equal, chw, hwc, seed

Image = pytest.importorskip("PIL.Image")


@pytest.mark.parametrize("angle", [17.5, -37, 90, 180, 200.25])
@pytest.mark.parametrize("expand", [False, True])
def test_rotate_nearest_matches_paddle_pil(pf, rgb, angle, expand):
    expected = np.asarray(pf.rotate(Image.fromarray(rgb), angle, expand=expand, fill=(5, 6, 7)))
    np.testing.assert_array_equal(F.rotate(rgb, angle, expand=expand, fill=(5, 6, 7)), expected)
    center = (4, 3)
    expected = np.asarray(pf.rotate(Image.fromarray(rgb), angle, center=center))
    assert_mostly_equal(F.rotate(rgb, angle, center=center), expected)


def test_warps_bilinear_match_paddle_tensor(paddle, pf, rgb):
    image = rgb.astype(np.float32) / 255
    tensor = chw(paddle, image)
    start = [[0, 0], [16, 0], [16, 12], [0, 12]]
    end = [[2, 1], [15, 0], [14, 11], [1, 12]]
    cases = [
        (F.rotate(image, 23, "bilinear"), pf.rotate(tensor, 23, "bilinear")),
        (F.affine(image, 20, [2, -1], 1.2, [10, 5], "bilinear"),
         pf.affine(tensor, 20, [2, -1], 1.2, [10, 5], "bilinear")),
        (F.perspective(image, start, end, "bilinear"),
         pf.perspective(tensor, start, end, "bilinear")),
    ]
    for got, expected in cases:
        assert got.dtype == np.float32
        np.testing.assert_allclose(got[3:-3, 3:-3], hwc(expected)[3:-3, 3:-3], atol=1e-5)
    out = F.rotate(rgb, 23, "bilinear")
    assert out.dtype == np.uint8
    assert np.abs(out.astype(float) - F.rotate(image, 23, "bilinear") * 255).max() <= 0.5 + 1e-3


def test_affine_and_perspective_nearest(paddle, pf, rgb):
    pil = Image.fromarray(rgb)
    for args in ((20, [2, -1], 1.2, [10, 5]), (-33, [0, 3], 0.8, 7), (45, (1, 1), 1.0, [0, -15])):
        assert_mostly_equal(F.affine(rgb, *args), np.asarray(pf.affine(pil, *args)))
    image = rgb.astype(np.float32) / 255  # Paddle's PIL affine ignores fill; its Tensor one not
    got = F.affine(image, -33, [0, 3], 0.8, 7, fill=0.25)
    assert_mostly_equal(got, hwc(pf.affine(chw(paddle, image), -33, [0, 3], 0.8, 7, fill=0.25)))
    assert (got == 0.25).all(axis=-1).sum() > 10
    assert_mostly_equal(F.affine(rgb, 20, [2, -1], 1.2, [10, 5], center=[3, 4]),
                        np.asarray(pf.affine(pil, 20, [2, -1], 1.2, [10, 5], center=[3, 4])))
    start = [[0, 0], [16, 0], [16, 12], [0, 12]]
    end = [[3, 2], [14, 0], [16, 9], [2, 12]]
    expected = np.asarray(pf.perspective(pil, start, end))
    np.testing.assert_array_equal(F.perspective(rgb, start, end), expected)
    expected = hwc(pf.perspective(chw(paddle, image), start, end))
    assert_mostly_equal(F.perspective(image, start, end), expected)
    np.testing.assert_array_equal(F.affine(rgb, 0, [0, 0], 1.0, 0), rgb)
    with pytest.raises(ValueError, match="scale should be positive"):
        F.affine(rgb, 0, [0, 0], 0, 0)
    with pytest.raises(ValueError, match="interpolation"):
        F.rotate(rgb, 10, "bicubic")
    with pytest.raises(ValueError, match="4 \\[x, y\\] points"):
        F.perspective(rgb, start[:3], end)


def test_random_warps_draw_like_paddle(paddle, rgb):
    pil = Image.fromarray(rgb)
    P = paddle.vision.transforms
    pairs = [
        (T.RandomRotation(40, fill=9), P.RandomRotation(40, fill=9)),
        (T.RandomRotation((10, 80), expand=True), P.RandomRotation((10, 80), expand=True)),
        (T.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), (-10, 10, -5, 5)),
         P.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), (-10, 10, -5, 5))),
        (T.RandomPerspective(0.7, 0.6), P.RandomPerspective(0.7, 0.6)),
    ]
    for ours_t, theirs_t in pairs:
        seed(8)
        theirs = [np.asarray(theirs_t(pil)) for _ in range(6)]
        seed(8)
        ours = [ours_t(rgb) for _ in range(6)]
        for got, expected in zip(ours, theirs):
            assert_mostly_equal(got, expected)
        assert len({o.tobytes() for o in ours}) > 1
    seed(8)
    ours = T.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), 10)._get_param([17, 13])
    seed(8)
    assert ours == P.RandomAffine(30, (0.2, 0.1), (0.8, 1.2), 10)._get_param(
        [17, 13], [-30.0, 30.0], (0.2, 0.1), (0.8, 1.2), [-10.0, 10.0])
    with pytest.raises(ValueError, match="translation values"):
        T.RandomAffine(10, translate=(0.5, 2))
    with pytest.raises(ValueError, match="must be positive"):
        T.RandomRotation(-3)


@pytest.mark.parametrize("value", [0, (10, 20, 30), "random"])
def test_random_erasing_matches_paddle_numpy(paddle, rgb, value):
    image = np.random.default_rng(1).integers(0, 256, size=(30, 40, 3), dtype=np.uint8)
    seed(13)
    theirs = [paddle.vision.transforms.RandomErasing(0.8, value=value)(image) for _ in range(6)]
    seed(13)
    ours = [T.RandomErasing(0.8, value=value)(image) for _ in range(6)]
    for got, expected in zip(ours, theirs):
        np.testing.assert_array_equal(got, expected)
    assert any(not np.array_equal(o, image) for o in ours)


def test_random_erasing_chw_and_functional(paddle, rgb):
    image = np.random.default_rng(2).random((3, 30, 40)).astype(np.float32)
    seed(3)
    out = T.RandomErasing(1.0, value=(0.1, 0.2, 0.3))(image)  # ToTensor's CHW output
    erased = np.any(out != image, axis=0)
    assert 0 < erased.sum() < 30 * 40
    fill = np.broadcast_to(np.array([[0.1], [0.2], [0.3]]), (3, erased.sum()))
    np.testing.assert_allclose(out[:, erased], fill, rtol=1e-6)
    seed(3)
    tensor_out = T.RandomErasing(1.0, value=(0.1, 0.2, 0.3))(skiff.to_tensor(image))
    np.testing.assert_array_equal(tensor_out.numpy(), out)
    np.testing.assert_array_equal(F.erase(rgb, 1, 2, 3, 4, 0)[1:4, 2:6], 0)
    same = rgb.copy()
    assert F.erase(same, 0, 0, 2, 2, 7, inplace=True) is same and (same[:2, :2] == 7).all()
    with pytest.raises(ValueError, match="'random'"):
        T.RandomErasing(value="noise")
    with pytest.raises(ValueError, match="prob"):
        T.RandomErasing(prob=1.5)
