"""paddle.vision.transforms on PIL images and CHW Tensors (skiff/vision/transforms/pil_image.py,
image_input.py, functional.py) against Paddle on the same random image: a PIL image comes back
a PIL image of the same mode with Paddle's pixels, to_tensor gives Paddle's Tensor for every
mode, Tensors give Paddle's Tensor backend's values, the random transforms draw as Paddle's,
and the wrong kinds of image and arguments raise clear errors."""
import numpy as np
import pytest

import skiff
from skiff.vision import transforms as T
from skiff.vision.transforms import functional as F

from image_reference import seed

Image = pytest.importorskip("PIL.Image")

POINTS = ([[0, 0], [16, 0], [16, 12], [0, 12]], [[2, 1], [15, 0], [16, 11], [1, 12]])

# (function, args, kwargs) applied to a PIL image by skiff and by Paddle.
PIL_CASES = [
    ("hflip", (), {}),
    ("vflip", (), {}),
    ("resize", (8,), {}),
    ("resize", ((20, 9),), {"interpolation": "nearest"}),
    ("resize", ((9, 23),), {"interpolation": "bicubic"}),
    ("resize", ((7, 7),), {"interpolation": "box"}),
    ("resize", ((30, 11),), {"interpolation": "lanczos"}),
    ("resize", ((6, 5),), {"interpolation": "hamming"}),
    ("pad", (3,), {}),
    ("pad", ((1, 2),), {"fill": 7}),
    ("pad", ((1, 2, 3, 4),), {"padding_mode": "edge"}),
    ("pad", ((2, 1),), {"padding_mode": "reflect"}),
    ("pad", (2,), {"padding_mode": "symmetric"}),
    ("crop", (2, 3, 7, 9), {}),
    ("crop", (10, 12, 8, 9), {}),  # Pillow's crop: zeros beyond the image
    ("center_crop", (7,), {}),
    ("center_crop", ((4, 11),), {}),
    ("adjust_brightness", (0.4,), {}),
    ("adjust_brightness", (1.7,), {}),
    ("adjust_contrast", (0.3,), {}),
    ("adjust_contrast", (2.2,), {}),
    ("adjust_saturation", (0.0,), {}),
    ("adjust_saturation", (1.8,), {}),
    ("adjust_hue", (0.27,), {}),
    ("adjust_hue", (-0.4,), {}),
    ("adjust_hue", (0.5,), {}),
    ("to_grayscale", (), {}),
    ("to_grayscale", (3,), {}),
    ("rotate", (33,), {}),
    ("rotate", (-71,), {"interpolation": "bilinear", "expand": True}),
    ("rotate", (90,), {"expand": True}),
    ("rotate", (15,), {"interpolation": "bicubic", "center": (3, 4)}),
    ("affine", (25, [2, -1], 0.8, [6, -4]), {}),
    ("affine", (-10, [0, 3], 1.2, 5), {"interpolation": "bilinear", "center": (4, 2)}),
    ("perspective", POINTS, {}),
    ("perspective", POINTS, {"interpolation": "bicubic"}),
]


@pytest.fixture
def pil_rgb(rgb):
    return Image.fromarray(rgb)


def _same_image(got, expected):
    assert isinstance(got, Image.Image), type(got)
    assert got.mode == expected.mode and got.size == expected.size
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


@pytest.mark.parametrize("name,args,kwargs", PIL_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(PIL_CASES)])
def test_pil_functions_match_paddle(pf, pil_rgb, name, args, kwargs):
    _same_image(getattr(F, name)(pil_rgb, *args, **kwargs),
                getattr(pf, name)(pil_rgb, *args, **kwargs))


@pytest.mark.parametrize("mode", ["L", "RGBA", "P"])
def test_pil_functions_keep_other_modes(pf, pil_rgb, mode):
    image = pil_rgb.convert(mode)
    for name, args, kwargs in [("hflip", (), {}), ("resize", ((5, 8),), {}),
                               ("pad", ((1, 2),), {}), ("pad", (2,), {"padding_mode": "edge"}),
                               ("crop", (1, 2, 5, 6), {}), ("to_grayscale", (), {})]:
        _same_image(getattr(F, name)(image, *args, **kwargs),
                    getattr(pf, name)(image, *args, **kwargs))
    if mode == "P":  # Pillow's enhancers refuse palette images, under Paddle too
        with pytest.raises(ValueError, match="wrong mode"):
            F.adjust_brightness(image, 0.5)
        return
    for name, factor in [("adjust_brightness", 0.6), ("adjust_contrast", 1.4),
                         ("adjust_saturation", 0.5), ("adjust_hue", 0.2)]:
        _same_image(getattr(F, name)(image, factor), getattr(pf, name)(image, factor))


def test_pil_rotation_fill(pf, pil_rgb):
    grey = pil_rgb.convert("L")
    # Paddle makes an int fill a 3-tuple, which Pillow refuses for one band; skiff passes it
    rotated = F.rotate(grey, 30, fill=9)
    expected = pf.rotate(pil_rgb, 30, fill=(9, 9, 9)).convert("L")
    assert rotated.mode == "L" and np.asarray(rotated)[0, 0] == 9
    assert np.asarray(rotated).shape == np.asarray(expected).shape
    _same_image(F.rotate(pil_rgb, 30, fill=(1, 2, 3)), pf.rotate(pil_rgb, 30, fill=(1, 2, 3)))
    rgba = pil_rgb.convert("RGBA")  # a number fills 3 bands, as Paddle's: alpha becomes opaque
    _same_image(F.rotate(rgba, 30, fill=5), pf.rotate(rgba, 30, fill=5))
    _same_image(F.affine(rgba, 30, [1, 1], 1.0, 0), pf.affine(rgba, 30, [1, 1], 1.0, 0))
    # Paddle hands affine's and perspective's fill to Image.transform's `fill` parameter, not
    # `fillcolor`, so Pillow ignores it; skiff fills, as Paddle's documentation says
    filled = np.asarray(F.affine(pil_rgb, 30, [1, 1], 1.0, 0, fill=(1, 2, 3)))
    assert filled[0, 0].tolist() == [1, 2, 3]
    filled = np.asarray(F.perspective(pil_rgb, *POINTS, fill=9).convert("L"))
    assert 9 in filled[0]


@pytest.mark.parametrize("mode", ["RGB", "L", "RGBA", "I", "F", "1", "I;16", "P", "LA"])
@pytest.mark.parametrize("data_format", ["CHW", "HWC"])
def test_to_tensor_of_pil_modes_matches_paddle(pf, rgb, mode, data_format):
    image = Image.fromarray(rgb).convert(mode)
    expected = pf.to_tensor(image, data_format).numpy()
    got = F.to_tensor(image, data_format)
    assert isinstance(got, skiff.Tensor)
    assert got.numpy().dtype == expected.dtype and got.shape == list(expected.shape)
    np.testing.assert_array_equal(got.numpy(), expected)


def test_numpy_to_tensor_and_normalize_of_pil_match_paddle(paddle, pf, rgb, pil_rgb):
    for image in (rgb, rgb[:, :, 0], rgb.astype(np.float64) / 255, rgb.astype(np.int32)):
        expected = pf.to_tensor(image).numpy()
        got = F.to_tensor(image).numpy()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    expected = pf.normalize(pil_rgb, [127.5, 120, 100], [127.5, 60, 50], data_format="HWC")
    got = F.normalize(pil_rgb, [127.5, 120, 100], [127.5, 60, 50], data_format="HWC")
    assert isinstance(got, np.ndarray) and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_erase_of_pil_and_tensor_matches_paddle(paddle, pf, rgb, pil_rgb):
    for v in (np.array([1, 2, 3]), np.full((2, 4, 3), 300.0), 7):
        _same_image(F.erase(pil_rgb, 1, 2, 2, 4, v), pf.erase(pil_rgb, 1, 2, 2, 4, v))
    chw = rgb.transpose(2, 0, 1).astype(np.float32)
    got = F.erase(skiff.to_tensor(chw), 1, 2, 2, 4, skiff.zeros([3, 1, 1]))
    expected = pf.erase(paddle.to_tensor(chw), 1, 2, 2, 4, paddle.zeros([3, 1, 1]))
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


# Transform classes on PIL images, each drawn from the same seed under both.
def _transforms(module):
    return [
        module.Resize(9),
        module.Resize((6, 10), interpolation="bicubic"),
        module.CenterCrop(7),
        module.Pad((1, 2), fill=3),
        module.RandomCrop(15, pad_if_needed=True),
        module.RandomCrop(8, padding=2, padding_mode="reflect"),
        module.RandomResizedCrop(8, interpolation="lanczos"),
        module.RandomHorizontalFlip(0.5),
        module.RandomVerticalFlip(0.5),
        module.Grayscale(3),
        module.BrightnessTransform(0.5),
        module.ContrastTransform(0.5),
        module.SaturationTransform(0.5),
        module.HueTransform(0.4),
        module.ColorJitter(0.4, 0.4, 0.4, 0.4),
        module.RandomRotation(40, interpolation="bilinear", expand=True),
        module.RandomAffine(30, translate=[0.2, 0.1], scale=[0.8, 1.2], shear=[-10, 10]),
        module.RandomPerspective(prob=1.0, distortion_scale=0.6),
        module.RandomErasing(prob=1.0, value="random"),
        module.RandomErasing(prob=1.0, value=(1, 2, 3)),
    ]


def test_transform_classes_on_pil_match_paddle(paddle, pil_rgb):
    ours, theirs = _transforms(T), _transforms(paddle.vision.transforms)
    for n, (mine, reference) in enumerate(zip(ours, theirs)):
        for trial in range(3):
            seed(100 * n + trial)
            expected = reference(pil_rgb)
            seed(100 * n + trial)
            _same_image(mine(pil_rgb), expected)


def test_compose_of_pil_ends_in_a_tensor_as_paddle(paddle, pil_rgb):
    def pipeline(module):
        return module.Compose([module.RandomResizedCrop(8), module.ColorJitter(0.3, 0.3, 0.3),
                               module.ToTensor(), module.Normalize(0.5, 0.5)])

    seed(5)
    expected = pipeline(paddle.vision.transforms)(pil_rgb).numpy()
    seed(5)
    got = pipeline(T)(pil_rgb)
    assert isinstance(got, skiff.Tensor) and got.dtype == skiff.float32
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-6, atol=1e-6)
    assert isinstance(T.Transpose()(pil_rgb), np.ndarray)  # as Paddle: arrays, not images


TENSOR_CASES = [
    ("hflip", (), {}),
    ("vflip", (), {}),
    ("crop", (2, 3, 7, 9), {}),
    ("center_crop", ((5, 11),), {}),
    ("pad", ((1, 2, 3, 4),), {"fill": 0.5}),
    ("pad", (2,), {"padding_mode": "reflect"}),
    ("resize", ((20, 9),), {}),
    ("resize", (6,), {"interpolation": "nearest"}),
    ("resize", ((9, 23),), {"interpolation": "bicubic"}),
    ("adjust_brightness", (1.3,), {}),
    ("adjust_contrast", (0.6,), {}),
    ("adjust_saturation", (1.5,), {}),
    ("adjust_hue", (-0.3,), {}),
    ("to_grayscale", (3,), {}),
    ("affine", (20, [1, 2], 0.9, [5, 3]), {}),  # bilinear: test_warp_transforms.py
    ("perspective", POINTS, {}),
]


@pytest.mark.parametrize("name,args,kwargs", TENSOR_CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(TENSOR_CASES)])
def test_tensor_functions_match_paddle(paddle, pf, rgb, name, args, kwargs):
    chw = rgb.transpose(2, 0, 1).astype(np.float32) / np.float32(255)
    got = getattr(F, name)(skiff.to_tensor(chw), *args, **kwargs)
    expected = getattr(pf, name)(paddle.to_tensor(chw), *args, **kwargs).numpy()
    assert isinstance(got, skiff.Tensor) and got.shape == list(expected.shape)
    if name == "perspective":  # Paddle's float32 grid moves a few nearest-pixel choices
        assert (np.abs(got.numpy() - expected) > 1e-6).mean() < 0.03
        return
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=2e-6)


def test_tensor_uint8_resize_truncates_as_paddle(paddle, pf, rgb):
    chw = np.ascontiguousarray(rgb.transpose(2, 0, 1))
    for size in ((20, 9), 8, (7, 30)):
        got = F.resize(skiff.to_tensor(chw), size).numpy()
        expected = pf.resize(paddle.to_tensor(chw), size).numpy()
        assert got.dtype == np.uint8 and got.shape == expected.shape
        # float32 sums of another order may fall on the other side of an integer
        assert np.abs(got.astype(int) - expected).max() <= 1
        assert (got != expected).mean() < 0.01


def test_image_kind_tests_and_wrong_kinds(pil_rgb, rgb):
    assert F._is_pil_image(pil_rgb) and not F._is_pil_image(rgb)
    assert F._is_numpy_image(rgb) and not F._is_numpy_image(rgb[0, 0])
    assert F._is_tensor_image(skiff.to_tensor(rgb)) and not F._is_tensor_image(rgb)
    kinds = r"PIL Image or Tensor Image or ndarray with dim=\[2 or 3\]"
    with pytest.raises(TypeError, match=kinds + ", got ndarray of shape \\[4\\]"):
        F.hflip(np.zeros(4, dtype=bool))  # a 1-D array is no image
    with pytest.raises(TypeError, match=kinds + ", got list"):
        F.adjust_brightness([[1, 2]], 0.5)
    with pytest.raises(TypeError, match=kinds):
        T.RandomHorizontalFlip(1.0)("image.png")
    with pytest.raises(TypeError, match=kinds):
        F.to_tensor(np.zeros((2, 2, 2, 2)))


def test_argument_errors(pil_rgb, rgb):
    with pytest.raises(TypeError, match="normalize: mean must be a number or a sequence"):
        F.normalize(rgb, b"\x01\x02\x03", [1, 1, 1], data_format="HWC")
    with pytest.raises(TypeError, match="normalize: std must be"):
        T.Normalize([0.5], "x")(rgb)
    with pytest.raises(ValueError, match="interpolation must be one of"):
        F.resize(pil_rgb, 5, "area")  # OpenCV's name: not one of Pillow's
    with pytest.raises(ValueError, match="interpolation must be one of"):
        F.rotate(pil_rgb, 10, "box")
    with pytest.raises(ValueError, match="padding_mode"):
        F.pad(pil_rgb, 1, padding_mode="wrap")
    with pytest.raises(ValueError, match="2, or 4 element"):
        F.pad(pil_rgb, (1, 2, 3))
    with pytest.raises(ValueError, match="hue_factor"):
        F.adjust_hue(pil_rgb, 0.7)
    with pytest.raises(ValueError, match="num_output_channels"):
        F.to_grayscale(pil_rgb, 2)
    with pytest.raises(ValueError, match="brightness_factor should be non-negative"):
        F.adjust_brightness(pil_rgb, -1)
    with pytest.raises(ValueError, match="fill has 2 values"):
        F.pad(pil_rgb, 1, fill=(1, 2))
    with pytest.raises(TypeError, match="crop: top must be an int"):
        F.crop(pil_rgb, {}, 0, 2, 2)
    with pytest.raises(TypeError, match="scale must be a \\(min, max\\) pair"):
        T.RandomResizedCrop(3, 0.1)
    with pytest.raises(ValueError, match="order must be a permutation"):
        T.Transpose(order=(2, 0))
    with pytest.raises(TypeError, match="width must be an int"):
        T.RandomPerspective().get_params("\x00", 4, 0.5)


def test_public_functions_keep_their_defaults(rgb, pil_rgb):
    # skiff.vision.transforms' checked wrappers take the defaults of the image functions
    assert T.pad(rgb, 1).shape == (15, 19, 3)
    assert T.resize(pil_rgb, 4).size == (5, 4)
    assert T.rotate(rgb, 90).shape == rgb.shape
    assert T.to_grayscale(pil_rgb).mode == "L"
    assert T.perspective(rgb, *POINTS).shape == rgb.shape
