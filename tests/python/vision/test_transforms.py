"""Image transforms, checked by hand and against paddle.vision.transforms on the same input."""

import random

import numpy as np
import pytest

import skiff
from skiff.vision import transforms as T


@pytest.fixture
def rgb():
    return np.random.default_rng(1).integers(0, 256, size=(6, 9, 3), dtype=np.uint8)


def test_to_tensor_layout_and_scale(rgb):
    out = T.ToTensor()(rgb)
    assert isinstance(out, skiff.Tensor) and out.shape == [3, 6, 9] and out.dtype == skiff.float32
    np.testing.assert_allclose(out.numpy()[1], rgb[:, :, 1] / 255.0, rtol=1e-6)
    assert T.ToTensor(data_format="HWC")(rgb[:, :, 0]).shape == [6, 9, 1]
    assert T.ToTensor()(rgb.astype(np.float64)).dtype == skiff.float64
    with pytest.raises(ValueError, match="data_format"):
        T.ToTensor(data_format="NCHW")


@pytest.mark.parametrize("data_format", ["CHW", "HWC"])
def test_to_tensor_matches_paddle(paddle, rgb, data_format):
    for image in (rgb, rgb[:, :, 0], rgb.astype(np.float32)):
        expected = paddle.vision.transforms.ToTensor(data_format=data_format)(image).numpy()
        got = T.ToTensor(data_format=data_format)(image).numpy()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)


def test_normalize_matches_paddle(paddle, rgb):
    chw = T.ToTensor()(rgb).numpy()
    cases = [
        (chw, dict(mean=[0.5, 0.4, 0.3], std=[0.2, 0.25, 0.3])),
        (rgb, dict(mean=[120, 110, 100], std=[50, 60, 70], data_format="HWC")),
        (rgb[:, :, 0], dict(mean=[127.5], std=[127.5])),  # the MNIST idiom: HW -> [1, H, W]
        (rgb, dict(mean=[1, 2, 3], std=[4, 5, 6], data_format="HWC", to_rgb=True)),
    ]
    for image, kwargs in cases:
        expected = paddle.vision.transforms.Normalize(**kwargs)(image)
        got = T.Normalize(**kwargs)(image)
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_normalize_scalar_and_channel_checks(rgb):
    gray = T.ToTensor()(rgb[:, :, :1])
    out = T.Normalize(0.5, 0.5)(gray)
    assert out.shape == [1, 6, 9]  # a scalar applies to each channel; no channels are added
    np.testing.assert_allclose(out.numpy(), (gray.numpy() - 0.5) / 0.5)
    flipped = T.Normalize(0, 1, to_rgb=True)(T.ToTensor()(rgb))
    np.testing.assert_array_equal(flipped.numpy(), T.ToTensor()(rgb[:, :, ::-1]).numpy())
    with pytest.raises(ValueError, match="2 values but the CHW image"):
        T.Normalize([0, 0], [1, 1])(T.ToTensor()(rgb))


def paddle_resize(paddle, image, size, interpolation):
    """Paddle's resize of a CHW Tensor (interpolate, half-pixel), back to HWC numpy."""
    tensor = paddle.to_tensor(image.transpose(2, 0, 1).astype(np.float32))
    return paddle.vision.transforms.resize(tensor, size, interpolation).numpy().transpose(1, 2, 0)


@pytest.mark.parametrize("interpolation", ["bilinear", "nearest"])
@pytest.mark.parametrize("size", [(12, 18), (3, 4), (7, 5), (6, 9), 4])
def test_resize_matches_paddle(paddle, rgb, size, interpolation):
    image = rgb.astype(np.float32)
    got = T.Resize(size, interpolation)(image)
    expected = paddle_resize(paddle, image, size, interpolation)
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-4)


def test_resize_integer_images_round_and_keep_dtype(rgb):
    out = T.Resize((11, 4))(rgb)
    assert out.dtype == np.uint8 and out.shape == (11, 4, 3)
    exact = T.Resize((11, 4))(rgb.astype(np.float32))
    assert np.abs(out.astype(np.float32) - exact).max() <= 0.5
    gray = T.Resize((3, 3), "nearest")(rgb[:, :, 0])
    np.testing.assert_array_equal(gray, rgb[[0, 2, 4]][:, [0, 3, 6], 0])


def test_resize_int_size_keeps_aspect(rgb):
    assert T.Resize(3)(rgb).shape == (3, 4, 3)  # shorter side 6 -> 3, longer 9 -> int(4.5)
    assert T.Resize(6)(rgb) is rgb
    with pytest.raises(ValueError, match="'nearest', 'bilinear' for this image kind"):
        T.Resize(3, interpolation="bicubic")(rgb)  # a PIL image's interpolation
    with pytest.raises(ValueError, match="interpolation must be one of"):
        T.Resize(3, interpolation="cubic")


def test_resize_matches_pil_when_upsampling(rgb):
    image_module = pytest.importorskip("PIL.Image")
    expected = np.asarray(
        image_module.fromarray(rgb).resize((20, 13), image_module.Resampling.BILINEAR)
    )
    got = T.Resize((13, 20))(rgb)
    assert np.abs(got.astype(int) - expected.astype(int)).max() <= 1


def test_random_horizontal_flip_draws_like_paddle(paddle, rgb):
    image_module = pytest.importorskip("PIL.Image")
    random.seed(7)
    reference = paddle.vision.transforms.RandomHorizontalFlip(0.5)
    theirs = [np.asarray(reference(image_module.fromarray(rgb))) for _ in range(12)]
    random.seed(7)
    ours = [T.RandomHorizontalFlip(0.5)(rgb) for _ in range(12)]
    flips = 0
    for got, expected in zip(ours, theirs):
        np.testing.assert_array_equal(got, expected)
        flips += not np.array_equal(got, rgb)
    assert 0 < flips < 12
    np.testing.assert_array_equal(T.RandomHorizontalFlip(1.0)(rgb), rgb[:, ::-1])
    np.testing.assert_array_equal(T.RandomHorizontalFlip(0.0)(rgb), rgb)


def test_transpose_matches_paddle(paddle, rgb):
    for image in (rgb, rgb[:, :, 0]):
        expected = paddle.vision.transforms.Transpose()(image)
        np.testing.assert_array_equal(T.Transpose()(image), expected)
    assert T.Transpose((1, 0, 2))(rgb).shape == (9, 6, 3)


def test_compose_chains_and_names_the_failing_transform(rgb):
    pipeline = T.Compose([T.Resize((4, 4)), T.ToTensor(), T.Normalize(0.5, 0.5)])
    out = pipeline(rgb).numpy()
    assert out.shape == (3, 4, 4) and out.min() >= -1 and out.max() <= 1
    broken = T.Compose([T.ToTensor(), T.Normalize([0, 0], [1, 1])])
    with pytest.raises(ValueError) as info:
        broken(rgb)
    assert info.value.__notes__ == ["in transform 1 (Normalize) of Compose"]


def test_keys_apply_one_random_choice_to_image_and_mask(rgb):
    class FlipWithMask(T.RandomHorizontalFlip):
        def _apply_mask(self, mask):
            return T.hflip(mask) if self.params else mask

    mask = np.arange(54).reshape(6, 9)
    flip = FlipWithMask(prob=1.0, keys=("image", "mask", "label"))
    image, flipped_mask, label = flip((rgb, mask, 3))
    np.testing.assert_array_equal(image, rgb[:, ::-1])
    np.testing.assert_array_equal(flipped_mask, mask[:, ::-1])
    assert label == 3
