"""nms, matrix_nms, distribute_fpn_proposals, generate_proposals (skiff/vision/ops) against
paddle.vision.ops on random boxes: the indices and boxes each keeps, with scores, categories,
top_k, Gaussian or linear decay, background labels, pixel offsets and adaptive thresholds;
read_file and decode_jpeg; bad inputs."""
import numpy as np
import pytest

import skiff
from skiff.vision import ops


def _boxes(rng, shape, scale=1.0):
    b = rng.random(shape + (4,)).astype("float32") * scale
    b[..., 2:] += b[..., :2]
    return b


def _pair(paddle, value):
    if isinstance(value, np.ndarray):
        return paddle.to_tensor(value), skiff.to_tensor(value)
    return value, value


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nms_matches_paddle(paddle, seed):
    rng = np.random.default_rng(seed)
    boxes = _boxes(rng, (40,))
    scores = rng.random(40).astype("float32")
    cats = rng.integers(0, 3, 40).astype("int64")
    for threshold, args in [(0.3, ()), (0.5, (scores,)), (0.2, (scores, cats, [0, 2])),
                            (0.4, (scores, cats, [0, 1, 2], 5)), (0.3, (scores, None, None, 4))]:
        pairs = [_pair(paddle, a) for a in args]
        want = paddle.vision.ops.nms(paddle.to_tensor(boxes), threshold, *[p[0] for p in pairs])
        got = ops.nms(skiff.to_tensor(boxes), threshold, *[p[1] for p in pairs])
        assert got.numpy().tolist() == want.numpy().tolist()
        assert str(got.dtype).endswith("int64")


@pytest.mark.parametrize("kwargs", [
    dict(score_threshold=0.5, post_threshold=0.1, nms_top_k=400, keep_top_k=200,
         normalized=False),
    dict(score_threshold=0.3, post_threshold=0.2, nms_top_k=5, keep_top_k=7, use_gaussian=True,
         background_label=-1, return_index=True),
    dict(score_threshold=0.3, post_threshold=0.2, nms_top_k=-1, keep_top_k=-1,
         return_index=True, return_rois_num=False),
    dict(score_threshold=0.3, post_threshold=0.2, nms_top_k=-1, keep_top_k=3, return_index=True,
         background_label=2, gaussian_sigma=3.0, use_gaussian=True, normalized=False),
    dict(score_threshold=0.99, post_threshold=0.5, nms_top_k=-1, keep_top_k=-1,
         return_index=True),
])
def test_matrix_nms_matches_paddle(paddle, kwargs):
    rng = np.random.default_rng(4)
    boxes, scores = _boxes(rng, (3, 12)), rng.random((3, 4, 12)).astype("float32")
    want = paddle.vision.ops.matrix_nms(paddle.to_tensor(boxes), paddle.to_tensor(scores),
                                        **kwargs)
    got = ops.matrix_nms(skiff.to_tensor(boxes), skiff.to_tensor(scores), **kwargs)
    assert len(got) == len(want) == 3
    for g, w in zip(got, want):
        assert (g is None) == (w is None)
        if w is not None:
            assert list(g.shape) == list(w.shape)
            np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("pixel_offset", [False, True])
@pytest.mark.parametrize("counts", [[3, 1, 4, 2], [10], [0, 6, 4]])
def test_distribute_fpn_proposals_matches_paddle(paddle, pixel_offset, counts):
    rng = np.random.default_rng(5)
    rois = _boxes(rng, (10,), 300.0)
    num = np.array(counts, "int32")
    want = paddle.vision.ops.distribute_fpn_proposals(
        paddle.to_tensor(rois), 2, 5, 4, 224, pixel_offset, paddle.to_tensor(num))
    got = ops.distribute_fpn_proposals(skiff.to_tensor(rois), 2, 5, 4, 224, pixel_offset,
                                       skiff.to_tensor(num))
    assert len(got[0]) == len(want[0]) == 4
    for g, w in zip(got[0], want[0]):
        np.testing.assert_array_equal(g.numpy(), w.numpy())
    np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    assert str(got[1].dtype).endswith("int32")
    for g, w in zip(got[2], want[2]):
        np.testing.assert_array_equal(g.numpy(), w.numpy())


@pytest.mark.parametrize("n,a,h,w,pre,post,thresh,pixel_offset,eta,min_size", [
    (2, 4, 5, 5, 6000, 1000, 0.5, False, 1.0, 0.1),
    (2, 3, 4, 6, 30, 10, 0.7, True, 1.0, 2.0),
    (1, 2, 6, 6, 50, 20, 0.8, False, 0.9, 0.1),
])
def test_generate_proposals_matches_paddle(paddle, n, a, h, w, pre, post, thresh,
                                           pixel_offset, eta, min_size):
    rng = np.random.default_rng(6)
    scores = rng.random((n, a, h, w)).astype("float32")
    deltas = rng.random((n, 4 * a, h, w)).astype("float32") - 0.5
    size = np.array([[60.0, 80.0]] * n, "float32")
    anchors = rng.random((h, w, a, 4)).astype("float32") * 40
    anchors[..., 2:] += anchors[..., :2] + 5
    variances = rng.random((h, w, a, 4)).astype("float32")
    arrays = (scores, deltas, size, anchors, variances)
    args = (pre, post, thresh, min_size, eta, pixel_offset, True)
    want = paddle.vision.ops.generate_proposals(*[paddle.to_tensor(t) for t in arrays], *args)
    got = ops.generate_proposals(*[skiff.to_tensor(t) for t in arrays], *args)
    for g, e in zip(got, want):
        assert list(g.shape) == list(e.shape)
        np.testing.assert_allclose(g.numpy(), e.numpy(), rtol=1e-5, atol=1e-4)


def test_read_file_and_decode_jpeg(tmp_path):
    image = pytest.importorskip("PIL.Image")
    pixels = (np.random.default_rng(7).random((20, 30, 3)) * 255).astype("uint8")
    path = str(tmp_path / "fake.jpg")
    image.fromarray(pixels).save(path)
    data = ops.read_file(path)
    assert str(data.dtype).endswith("uint8")
    with open(path, "rb") as f:
        np.testing.assert_array_equal(data.numpy(), np.frombuffer(f.read(), np.uint8))
    decoded = ops.decode_jpeg(data)
    np.testing.assert_array_equal(decoded.numpy().transpose(1, 2, 0),
                                  np.asarray(image.open(path)))
    assert list(ops.decode_jpeg(data, mode="gray").shape) == [1, 20, 30]
    with pytest.raises(ValueError, match="mode must be one of"):
        ops.decode_jpeg(data, mode="cmyk")
    with pytest.raises(ValueError, match="no file"):
        ops.read_file(str(tmp_path / "missing.jpg"))
    with pytest.raises(ValueError, match="1-D uint8 Tensor"):
        ops.decode_jpeg(skiff.to_tensor(np.ones(4, "float32")))


def test_bad_inputs_raise_clear_errors():
    boxes = skiff.to_tensor(np.ones((4, 4), "float32"))
    with pytest.raises(ValueError, match="boxes must be \\[N, 4\\]"):
        ops.nms(skiff.to_tensor(np.ones((4, 3), "float32")))
    with pytest.raises(ValueError, match="scores must be \\[4\\]"):
        ops.nms(boxes, 0.3, skiff.to_tensor(np.ones(3, "float32")))
    with pytest.raises(ValueError, match="categories must list"):
        ops.nms(boxes, 0.3, skiff.to_tensor(np.ones(4, "float32")),
                skiff.to_tensor(np.zeros(4, "int64")))
    with pytest.raises(ValueError, match="scores must be \\[N, C, M\\]"):
        ops.matrix_nms(skiff.to_tensor(np.ones((1, 4, 4), "float32")),
                       skiff.to_tensor(np.ones((1, 2, 3), "float32")), 0.1, 0.1, -1, -1)
    with pytest.raises(ValueError, match="max_level .* must be >= min_level"):
        ops.distribute_fpn_proposals(boxes, 5, 2, 4, 224)
    with pytest.raises(ValueError, match="anchors must have shape"):
        ops.generate_proposals(skiff.to_tensor(np.ones((1, 2, 3, 3), "float32")),
                               skiff.to_tensor(np.ones((1, 8, 3, 3), "float32")),
                               skiff.to_tensor(np.ones((1, 2), "float32")),
                               skiff.to_tensor(np.ones((3, 3, 1, 4), "float32")),
                               skiff.to_tensor(np.ones((3, 3, 2, 4), "float32")))
