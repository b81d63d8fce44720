"""interpolate / upsample / unfold / fold and their layers: every mode and alignment
against paddle 3.3 (values) and torch (values and gradients where the conventions agree),
sizes from lists, tensors and scales, channel-last layouts, a static program, and errors
naming the argument."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn.functional as F
from nn_reference import close, rand, tensor, torch_tensor
from static_twin import assert_static_matches_eager

# (mode, input shape, size or None, scale or None)
_RESIZES = [
    ("nearest", (2, 3, 4, 5), [7, 3], None),
    ("nearest", (1, 2, 5, 4), None, 2.0),
    ("nearest", (1, 2, 3, 4, 2), [5, 2, 3], None),
    ("bilinear", (2, 3, 4, 5), [7, 3], None),
    ("bilinear", (1, 2, 5, 3), None, 1.7),
    ("bilinear", (1, 2, 6, 6), None, [0.5, 1.5]),
    ("linear", (2, 2, 5), [8], None),
    ("trilinear", (1, 2, 3, 4, 2), [5, 2, 3], None),
    ("bicubic", (1, 2, 4, 5), [7, 3], None),
    ("bicubic", (2, 1, 3, 3), None, 2.5),
    ("area", (1, 2, 6, 7), [4, 3], None),
    ("area", (2, 2, 9), [4], None),
    ("area", (1, 2, 4, 6, 5), [3, 4, 2], None),
]
_ALIGNS = [(False, 0), (False, 1), (True, 0)]


def _cases():
    for mode, shape, size, scale in _RESIZES:
        aligns = _ALIGNS if mode in ("bilinear", "linear", "trilinear", "bicubic") else [(False, 0)]
        for align_corners, align_mode in aligns:
            if mode == "bicubic" and align_mode == 1:
                continue  # bicubic has no align_mode
            yield mode, shape, size, scale, align_corners, align_mode


CASES = list(_cases())


def _ids(case):
    mode, shape, size, scale, ac, am = case
    return f"{mode}-{len(shape)}d-{'size' if size else 'scale'}-ac{int(ac)}-am{am}"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_interpolate_matches_paddle(case, dtype):
    import paddle
    mode, shape, size, scale, ac, am = case
    x = rand(*shape, dtype=dtype, seed=3)
    got = F.interpolate(tensor(x), size=size, scale_factor=scale, mode=mode, align_corners=ac,
                        align_mode=am)
    want = paddle.nn.functional.interpolate(paddle.to_tensor(x), size=size, scale_factor=scale,
                                            mode=mode, align_corners=ac, align_mode=am)
    assert got.dtype == skiff.float32 if dtype == "float32" else got.dtype == skiff.float64
    # Paddle keeps interpolation weights in float32 whatever the dtype.
    close(got, want.numpy(), dtype, rtol=1e-5 if dtype == "float32" else 1e-6, atol=1e-6)


_TORCH_CASES = [c for c in CASES if c[5] == 0]  # align_mode 1 is Paddle's own


@pytest.mark.parametrize("case", _TORCH_CASES, ids=_ids)
def test_interpolate_values_and_gradients_match_torch(case):
    mode, shape, size, scale, ac, _ = case
    x = rand(*shape, seed=5)
    xs, xt = tensor(x, grad=True), torch_tensor(x, grad=True)
    got = F.interpolate(xs, size=size, scale_factor=scale, mode=mode, align_corners=ac)
    kwargs = {"align_corners": ac} if mode not in ("nearest", "area") else {}
    want = torch.nn.functional.interpolate(xt, size=size, scale_factor=scale, mode=mode,
                                           **kwargs)
    # The source step is float32 (Paddle's), torch's float64: weights agree to ~1e-7.
    close(got, want, rtol=1e-5, atol=1e-6)
    w = rand(*want.shape, seed=9)
    (got * tensor(w)).sum().backward()
    (want * torch_tensor(w)).sum().backward()
    close(xs.grad, xt.grad, rtol=1e-5, atol=1e-6)


def test_sizes_from_tensors_scales_and_channel_last():
    import paddle
    x = rand(2, 3, 4, 5, dtype="float32", seed=1)
    want = paddle.nn.functional.interpolate(paddle.to_tensor(x), size=[6, 7], mode="bilinear")
    for size in ([6, 7], skiff.to_tensor(np.array([6, 7], "int32")),
                 [skiff.to_tensor(np.array([6], "int64")), 7]):
        close(F.interpolate(tensor(x), size=size, mode="bilinear"), want.numpy(), "float32")
    by_tensor = F.interpolate(tensor(x), scale_factor=skiff.to_tensor(np.array([1.5, 2.0],
                                                                               "float32")))
    close(by_tensor, paddle.nn.functional.interpolate(paddle.to_tensor(x),
                                                      scale_factor=[1.5, 2.0]).numpy(), "float32")
    recomputed = F.interpolate(tensor(x), scale_factor=1.3, mode="bilinear",
                               recompute_scale_factor=True)
    close(recomputed, paddle.nn.functional.interpolate(
        paddle.to_tensor(x), scale_factor=1.3, mode="bilinear",
        recompute_scale_factor=True).numpy(), "float32")
    nhwc = x.transpose(0, 2, 3, 1)
    close(F.interpolate(tensor(nhwc), size=[6, 7], mode="bicubic", data_format="NHWC"),
          paddle.nn.functional.interpolate(paddle.to_tensor(nhwc), size=[6, 7], mode="bicubic",
                                           data_format="NHWC").numpy(), "float32")
    nwc = rand(2, 5, 3, dtype="float32")
    close(F.upsample(tensor(nwc), scale_factor=2, mode="linear", data_format="NWC"),
          paddle.nn.functional.upsample(paddle.to_tensor(nwc), scale_factor=2, mode="linear",
                                        data_format="NWC").numpy(), "float32")


def test_nearest_keeps_integer_dtypes():
    import paddle
    x = np.arange(24, dtype="int64").reshape(1, 2, 3, 4)
    got = F.interpolate(skiff.to_tensor(x), size=[5, 7])
    assert got.dtype == skiff.int64
    np.testing.assert_array_equal(
        got.numpy(), paddle.nn.functional.interpolate(paddle.to_tensor(x), size=[5, 7]).numpy())
    with pytest.raises(TypeError, match="interpolate: x must be float32 or float64"):
        F.interpolate(skiff.to_tensor(x), size=[5, 7], mode="bilinear")


def test_layers_match_paddle():
    import paddle
    x = rand(2, 3, 4, 5, dtype="float32", seed=2)
    pairs = [
        (skiff.nn.Upsample(size=[6, 7], mode="bicubic", align_corners=True),
         paddle.nn.Upsample(size=[6, 7], mode="bicubic", align_corners=True)),
        (skiff.nn.Upsample(scale_factor=1.5, mode="bilinear", align_mode=1),
         paddle.nn.Upsample(scale_factor=1.5, mode="bilinear", align_mode=1)),
        (skiff.nn.UpsamplingNearest2D(scale_factor=2), paddle.nn.UpsamplingNearest2D(
            scale_factor=2)),
        (skiff.nn.UpsamplingBilinear2D(size=[7, 3]), paddle.nn.UpsamplingBilinear2D(
            size=[7, 3])),
        (skiff.nn.Unfold([2, 3], dilations=[1, 2], paddings=1, strides=[2, 1]),
         paddle.nn.Unfold([2, 3], dilations=[1, 2], paddings=1, strides=[2, 1])),
    ]
    for ours, theirs in pairs:
        close(ours(tensor(x)), theirs(paddle.to_tensor(x)).numpy(), "float32",
              what=type(ours).__name__)
    cols = rand(2, 12, 20, dtype="float32")
    close(skiff.nn.Fold([4, 5], 2, paddings=[1, 0])(tensor(cols)),
          paddle.nn.Fold([4, 5], 2, paddings=[1, 0])(paddle.to_tensor(cols)).numpy(), "float32")
    assert "scale_factor=1.5" in repr(pairs[1][0])


# (x shape, kernel_sizes, strides, paddings, dilations)
_WINDOWS = [
    ((2, 3, 4, 5), 2, 1, 0, 1),
    ((1, 2, 5, 6), [3, 2], [2, 1], [1, 0, 2, 1], [1, 2]),
    ((2, 1, 6, 6), [2, 3], 2, [1, 1], [2, 1]),
]


@pytest.mark.parametrize("window", _WINDOWS, ids=str)
def test_unfold_fold_match_paddle_and_torch(window):
    import paddle
    shape, k, s, p, d = window
    x = rand(*shape, seed=4)
    got = F.unfold(tensor(x), k, s, p, d)
    close(got, paddle.nn.functional.unfold(paddle.to_tensor(x), k, s, p, d).numpy())
    y = rand(*got.shape, seed=6)
    folded = F.fold(tensor(y), shape[2:], k, s, p, d)
    # fold is unfold's adjoint: <unfold(x), y> == <x, fold(y)>.
    np.testing.assert_allclose((got.numpy() * y).sum(), (x * folded.numpy()).sum(), rtol=1e-12)
    if not isinstance(p, list) or len(p) == 2:  # Paddle's fold rejects 4 unequal paddings
        close(folded, paddle.nn.functional.fold(paddle.to_tensor(y), list(shape[2:]), k, s, p,
                                                d).numpy())
    # torch pads both sides alike: compare there only.
    if not isinstance(p, list) or len(p) == 2:
        xs, xt = tensor(x, grad=True), torch_tensor(x, grad=True)
        ours = F.unfold(xs, k, s, p, d)
        theirs = torch.nn.functional.unfold(xt, k, dilation=d, padding=p, stride=s)
        close(ours, theirs)
        w = rand(*theirs.shape, seed=8)
        (ours * tensor(w)).sum().backward()
        (theirs * torch_tensor(w)).sum().backward()
        close(xs.grad, xt.grad)
        ys, yt = tensor(y, grad=True), torch_tensor(y, grad=True)
        ours = F.fold(ys, shape[2:], k, s, p, d)
        theirs = torch.nn.functional.fold(yt, shape[2:], k, dilation=d, padding=p, stride=s)
        close(ours, theirs)
        (ours * tensor(x)).sum().backward()
        (theirs * torch_tensor(x)).sum().backward()
        close(ys.grad, yt.grad)


def test_static_program_matches_eager():
    def fn(x):
        up = F.interpolate(x, size=[6, 7], mode="bilinear", align_corners=True)
        cols = F.unfold(up, [2, 3], paddings=1)
        return F.fold(cols, [6, 7], [2, 3], paddings=1) + F.interpolate(x, scale_factor=[1.5, 1.4],
                                                                        mode="bicubic")
    assert_static_matches_eager(fn, {"x": rand(2, 3, 4, 5, dtype="float32")}, grad_inputs=("x",))


def test_errors_name_the_argument():
    x = tensor(rand(1, 2, 3, 4, dtype="float32"))
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        F.interpolate(x)
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        F.interpolate(x, size=[4, 5], scale_factor=2)
    with pytest.raises(ValueError, match="interpolate: mode must be one of"):
        F.interpolate(x, size=[4, 5], mode="cubic")
    with pytest.raises(ValueError, match="mode 'linear' needs a 3-D input"):
        F.interpolate(x, size=[4, 5], mode="linear")
    with pytest.raises(ValueError, match="align_mode must be 0 or 1"):
        F.interpolate(x, size=[4, 5], mode="bilinear", align_mode=2)
    with pytest.raises(ValueError, match="align_corners can only be set"):
        F.interpolate(x, size=[4, 5], align_corners=True)
    with pytest.raises(ValueError, match="size must hold 2 values"):
        F.interpolate(x, size=[4, 5, 6])
    with pytest.raises(ValueError, match="scale_factor must be positive"):
        F.interpolate(x, scale_factor=-1)
    with pytest.raises(ValueError, match="data_format must be 'NCHW' or 'NHWC'"):
        F.interpolate(x, size=[4, 5], data_format="NCW")
    with pytest.raises(ValueError, match="antialias"):
        F.interpolate(x, size=[4, 5], mode="bilinear", antialias=True)
    with pytest.raises(ValueError, match="unfold: x must be 4-D"):
        F.unfold(tensor(rand(2, 3, 4)), 2)
    with pytest.raises(ValueError, match="unfold: paddings must be"):
        F.unfold(x, 2, paddings=[1, 2, 3])
    with pytest.raises(skiff.Error, match="padded height 3 is smaller than the dilated kernel"):
        F.unfold(x, [4, 2])
    with pytest.raises(ValueError, match="fold: output_sizes must be"):
        F.fold(tensor(rand(1, 8, 6)), [3, 4, 5], 2)
    with pytest.raises(skiff.Error, match="holds 6 windows"):
        F.fold(tensor(rand(1, 8, 6)), [4, 4], 2)


class _Resizes(skiff.nn.Layer):
    """Every Resize mapping on one input: nearest, bilinear (each alignment), bicubic."""

    def forward(self, x):
        outs = [F.interpolate(x, size=[7, 9]), F.interpolate(x, scale_factor=[2.0, 1.5])]
        for ac, am in _ALIGNS:
            outs.append(F.interpolate(x, size=[7, 3], mode="bilinear", align_corners=ac,
                                      align_mode=am))
            outs.append(F.interpolate(x, scale_factor=1.5, mode="bilinear", align_corners=ac,
                                      align_mode=am))
        outs.append(F.interpolate(x, size=[6, 8], mode="bicubic"))
        outs.append(F.interpolate(x, size=[6, 8], mode="bicubic", align_corners=True))
        return outs


def test_onnx_export_matches_onnxruntime(tmp_path):
    import onnx
    import onnxruntime as ort
    from skiff.static import InputSpec
    layer = _Resizes()
    path = skiff.onnx.export(layer, str(tmp_path / "resize"),
                             input_spec=[InputSpec([None, 3, 4, 5], "float32", "x")])
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    assert {n.op_type for n in model.graph.node} >= {"Resize"}
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    x = rand(2, 3, 4, 5, dtype="float32", seed=12)
    got = session.run(None, {session.get_inputs()[0].name: x})
    want = layer(tensor(x))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-5, atol=1e-5)
