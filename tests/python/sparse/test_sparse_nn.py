"""skiff.sparse.nn against Paddle: convolutions (values and gradients), pooling,
activations, softmax and batch norm."""
import numpy as np
import paddle
import pytest

import skiff

RNG = np.random.RandomState(0)
X = (RNG.randn(1, 4, 5, 3, 2) * (RNG.rand(1, 4, 5, 3, 1) > 0.6)).astype("float32")


@pytest.mark.parametrize("layer", ["Conv3D", "SubmConv3D"])
def test_conv3d_values_and_grads(layer):
    results = []
    for lib in (skiff, paddle):
        conv = getattr(lib.sparse.nn, layer)(2, 3, 3, padding=1)
        w = np.arange(np.prod(conv.weight.shape), dtype="float32").reshape(conv.weight.shape)
        conv.weight.set_value(lib.to_tensor(w / w.size))
        x = lib.to_tensor(X, stop_gradient=False)
        out = conv(x.to_sparse_coo(4))
        out.to_dense().sum().backward()
        results.append((out.to_dense().numpy(), x.grad.numpy(), conv.weight.grad.numpy()))
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("sparse_dim, fn", [
    (4, lambda lib, s: lib.sparse.nn.MaxPool3D(3, stride=1, padding=1)(s)),
    (4, lambda lib, s: lib.sparse.nn.ReLU()(s)),
    (4, lambda lib, s: lib.sparse.nn.LeakyReLU(0.5)(s)),
    (5, lambda lib, s: lib.sparse.nn.Softmax()(lib.sparse.reshape(s, [12, 10]))),
])
def test_max_pool_and_activations(sparse_dim, fn):
    a = fn(skiff, skiff.to_tensor(X).to_sparse_coo(sparse_dim))
    b = fn(paddle, paddle.to_tensor(X).to_sparse_coo(sparse_dim))
    np.testing.assert_allclose(a.to_dense().numpy(), b.to_dense().numpy(), rtol=1e-5, atol=1e-6)


def test_batch_norm_normalises_the_stored_values():
    a = skiff.sparse.nn.BatchNorm(2)(skiff.to_tensor(X).to_sparse_coo(4))
    b = paddle.sparse.nn.BatchNorm(2)(paddle.to_tensor(X).to_sparse_coo(4))
    np.testing.assert_allclose(a.values().numpy(), b.values().numpy(), rtol=1e-4, atol=1e-5)


def test_conv_refuses_a_wrong_layout():
    with pytest.raises(ValueError, match="data_format"):
        skiff.sparse.nn.Conv3D(2, 3, 3, data_format="NCDHW")
