"""The same model source run under PaddlePaddle and under skiff: identical state_dict
keys and shapes, and with Paddle's weights loaded, the same outputs, parameter
gradients and running statistics."""
import numpy as np
import pytest

import skiff


def build(paddle):
    """One network written against the Paddle API, built with ``paddle`` (the module)."""
    nn = paddle.nn
    F = paddle.nn.functional

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2D(2, 4, 3, padding=1)
            self.bn = nn.BatchNorm2D(4)
            self.pool = nn.MaxPool2D(2)
            self.embed = nn.Embedding(12, 6, padding_idx=0)
            self.lstm = nn.LSTM(6, 5, num_layers=2, direction="bidirect")
            self.gru = nn.GRU(10, 4)
            self.attn = nn.MultiHeadAttention(4, 2)
            self.norm = nn.LayerNorm(4)
            self.head = nn.Sequential(nn.Linear(16 + 4, 8), nn.GELU(), nn.Dropout(0.0),
                                      nn.Linear(8, 3))

        def forward(self, image, ids):
            h = self.pool(F.relu(self.bn(self.conv(image))))  # [N, 4, 2, 2]
            h = paddle.flatten(h, 1)
            seq, _ = self.lstm(self.embed(ids))
            seq, last = self.gru(seq)
            seq = self.norm(seq + self.attn(seq))
            pooled = paddle.mean(seq, axis=1)
            return self.head(paddle.concat([h, pooled], axis=1))

    return Net()


@pytest.fixture
def pair(paddle):
    paddle.seed(0)
    theirs = build(paddle)
    ours = build(skiff)
    return ours, theirs


def test_state_dict_keys_and_shapes_match(pair):
    ours, theirs = pair
    mine, ref = ours.state_dict(), theirs.state_dict()
    assert list(mine) == list(ref)
    for k in ref:
        assert list(mine[k].shape) == list(ref[k].shape), k
    assert [n for n, _ in ours.named_parameters()] == [
        n for n, p in theirs.named_parameters() if not p.stop_gradient]


def test_same_outputs_gradients_and_statistics(pair, paddle):
    ours, theirs = pair
    missing, unexpected = ours.set_state_dict({k: v.numpy() for k, v in
                                               theirs.state_dict().items()})
    assert missing == [] and unexpected == []
    rng = np.random.default_rng(0)
    image = rng.standard_normal((3, 2, 4, 4)).astype("float32")
    ids = rng.integers(0, 12, (3, 5)).astype("int64")
    out = ours(skiff.to_tensor(image), skiff.to_tensor(ids))
    ref = theirs(paddle.to_tensor(image), paddle.to_tensor(ids))
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-4, atol=1e-5)
    weights = rng.standard_normal(ref.shape).astype("float32")
    skiff.sum(out * skiff.to_tensor(weights)).backward()
    paddle.sum(ref * paddle.to_tensor(weights)).backward()
    ref_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), ref_params[name].grad.numpy(), rtol=2e-3,
                                   atol=1e-5, err_msg=name)
    ref_state = theirs.state_dict()
    for key in ("bn._mean", "bn._variance"):
        np.testing.assert_allclose(ours.state_dict()[key].numpy(), ref_state[key].numpy(),
                                   rtol=1e-5, atol=1e-6)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours(skiff.to_tensor(image), skiff.to_tensor(ids)).numpy(),
                               theirs(paddle.to_tensor(image), paddle.to_tensor(ids)).numpy(),
                               rtol=1e-4, atol=1e-5)
