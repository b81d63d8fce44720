"""hsigmoid_loss / HSigmoidLoss (skiff/nn/functional/hsigmoid.py, nn/layer/hsigmoid.py)
against Paddle (values and gradients; the default tree, custom paths, without bias), in a
static program, and its errors."""
import numpy as np
import pytest

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

from nn_reference import close, rand, tensor
from static_twin import assert_static_matches_eager


# ----- hsigmoid_loss / HSigmoidLoss ------------------------------------------------------
def _hsigmoid_inputs(num_classes, n=6, d=4, rows=None, dtype="float64", seed=0):
    rng = np.random.RandomState(seed)
    rows = num_classes - 1 if rows is None else rows
    return (rng.uniform(-1, 1, (n, d)).astype(dtype), rng.randint(0, num_classes, (n, 1)),
            rng.uniform(-1, 1, (rows, d)).astype(dtype),
            rng.uniform(-1, 1, (rows, 1)).astype(dtype))


def _both(paddle, arrays, fn_skiff, fn_paddle, grads=(0, 2, 3)):
    """Loss values and the gradients of sum(loss * weights) for the arrays at ``grads``,
    from skiff and from Paddle."""
    w = rand(arrays[0].shape[0], 1, dtype=str(arrays[0].dtype), seed=7)
    results = []
    for mod, fn in ((skiff, fn_skiff), (paddle, fn_paddle)):
        ts = [mod.to_tensor(a) for a in arrays]
        for i in grads:
            ts[i].stop_gradient = False
        out = fn(*ts)
        (out * mod.to_tensor(w)).sum().backward()
        results.append([out.numpy()] + [ts[i].grad.numpy() for i in grads])
    return results


@pytest.mark.parametrize("num_classes", [2, 5, 8, 13])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hsigmoid_default_tree_matches_paddle(paddle, num_classes, dtype):
    arrays = _hsigmoid_inputs(num_classes, dtype=dtype, seed=num_classes)
    ours, ref = _both(paddle, arrays,
                      lambda x, y, w, b: F.hsigmoid_loss(x, y, num_classes, w, b),
                      lambda x, y, w, b: paddle.nn.functional.hsigmoid_loss(x, y,
                                                                            num_classes, w, b))
    for a, e in zip(ours, ref):
        close(a, e, dtype)


def test_hsigmoid_formula_without_bias():
    """Power-of-two classes: every path is full, loss = sum softplus(z) - bit * z."""
    x, y, w, _ = _hsigmoid_inputs(4, n=3, seed=2)
    got = F.hsigmoid_loss(tensor(x), tensor(y), 4, tensor(w)).numpy()
    want = []
    for xi, c in zip(x, y[:, 0]):
        v, total = c + 4, 0.0
        for j in range(2):
            z = w[(v >> (j + 1)) - 1] @ xi
            total += np.log1p(np.exp(z)) - ((v >> j) & 1) * z
        want.append([total])
    close(got, want)


def test_hsigmoid_custom_paths_match_paddle(paddle):
    x, y, w, b = _hsigmoid_inputs(5, rows=5, seed=3)
    table = np.array([[0, 1, 3], [0, 2, -1], [0, 1, 4], [0, 2, -1], [0, 1, 3], [0, 2, -1]])
    code = np.array([[1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 0], [0, 1, 1], [1, 0, 0]])
    arrays = (x, y, w, b, table.astype("int64"), code.astype("int64"))
    ours, ref = _both(paddle, arrays,
                      lambda *t: F.hsigmoid_loss(t[0], t[1], 5, t[2], t[3], t[4], t[5]),
                      lambda *t: paddle.nn.functional.hsigmoid_loss(
                          t[0], t[1], 5, t[2], t[3], path_table=t[4], path_code=t[5]))
    for a, e in zip(ours, ref):
        close(a, e)


def test_hsigmoid_layer_matches_paddle(paddle):
    ours, ref = nn.HSigmoidLoss(4, 6), paddle.nn.HSigmoidLoss(4, 6)
    assert list(ours.weight.shape) == [5, 4] and list(ours.bias.shape) == [5, 1]
    assert list(nn.HSigmoidLoss(4, 6, is_custom=True).weight.shape) == [6, 4]
    skiff.set_default_dtype("float64")
    try:
        assert nn.HSigmoidLoss(4, 6).weight.numpy().dtype == np.float64  # as Paddle
    finally:
        skiff.set_default_dtype("float32")
    ours.weight.set_value(ref.weight.numpy())
    ours.bias.set_value(ref.bias.numpy() + 0.25)
    ref.bias.set_value(ref.bias.numpy() + 0.25)
    x, y, _, _ = _hsigmoid_inputs(6, dtype="float32", seed=4)
    close(ours(skiff.to_tensor(x), skiff.to_tensor(y)),
          ref(paddle.to_tensor(x), paddle.to_tensor(y)).numpy(), "float32")


def test_hsigmoid_static_matches_eager():
    x, y, w, b = _hsigmoid_inputs(7, seed=5)
    fn = lambda x, w: F.hsigmoid_loss(x, skiff.to_tensor(y), 7, w, skiff.to_tensor(b))  # noqa
    assert_static_matches_eager(fn, {"x": x, "w": w}, ("x", "w"), rtol=1e-12, atol=1e-14)


def test_hsigmoid_errors():
    x, y, w, b = _hsigmoid_inputs(5)
    with pytest.raises(ValueError, match="hsigmoid_loss.*num_classes"):
        F.hsigmoid_loss(tensor(x), tensor(y), 1, tensor(w))
    with pytest.raises(ValueError, match="hsigmoid_loss.*together"):
        F.hsigmoid_loss(tensor(x), tensor(y), 5, tensor(w), path_table=tensor(y))
    with pytest.raises(ValueError, match="hsigmoid_loss.*weight"):
        F.hsigmoid_loss(tensor(x), tensor(y), 5, tensor(w[:, :3]))
    with pytest.raises(ValueError, match="HSigmoidLoss.*num_classes"):
        nn.HSigmoidLoss(4, 1)
