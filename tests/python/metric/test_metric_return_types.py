"""What the metrics hand back, type for type, as Paddle does: Accuracy.compute a float32
Tensor, update / accumulate numpy float64 scalars (plain 0.0 before any sample), Auc the
same; and the Auc-with-nll_loss training of Paddle's example, whose labels are [N, 1]."""
import numpy as np
import paddle
import pytest

import skiff
import skiff.nn.functional as F


def _batch():
    x = np.array([[0.1, 0.2, 0.3, 0.4], [0.1, 0.4, 0.3, 0.2],
                  [0.1, 0.2, 0.4, 0.3], [0.1, 0.2, 0.3, 0.4]])
    y = np.array([[0], [1], [2], [3]])
    return x, y


@pytest.mark.parametrize("topk", [(1,), (1, 2)])
def test_accuracy_types_match_paddle(topk):
    x, y = _batch()
    ours, theirs = skiff.metric.Accuracy(topk=topk), paddle.metric.Accuracy(topk=topk)
    assert ours.accumulate() == theirs.accumulate()
    assert type(ours.accumulate()) is type(theirs.accumulate())
    got = ours.compute(skiff.to_tensor(x), skiff.to_tensor(y))
    want = theirs.compute(paddle.to_tensor(x), paddle.to_tensor(y))
    assert isinstance(got, skiff.Tensor) and got.dtype == skiff.float32
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    for a, b in ((ours.update(got), theirs.update(want)), (ours.accumulate(),
                                                           theirs.accumulate())):
        a, b = (a, b) if len(topk) > 1 else ([a], [b])
        assert all(type(u) is type(v) is np.float64 for u, v in zip(a, b))
        np.testing.assert_allclose(a, b)


def test_accuracy_empty_batch_is_nan():
    acc = skiff.metric.Accuracy()
    assert np.isnan(acc.update(np.zeros((0, 1), "float32")))
    assert acc.accumulate() == 0.0


def test_auc_types_match_paddle():
    rng = np.random.default_rng(3)
    ours, theirs = skiff.metric.Auc(), paddle.metric.Auc()
    assert type(ours.accumulate()) is type(theirs.accumulate()) is float
    p0 = rng.random((8, 1))
    preds, labels = np.concatenate([p0, 1 - p0], axis=1), rng.integers(0, 2, (8, 1))
    labels[:2] = [[0], [1]]
    ours.update(preds=preds, labels=labels)
    theirs.update(preds=preds, labels=labels)
    assert type(ours.accumulate()) is type(theirs.accumulate()) is np.float64
    assert ours.accumulate() == pytest.approx(theirs.accumulate(), rel=1e-12)


@pytest.mark.parametrize("in_shape,label_shape", [
    ((5, 3), (5, 1)), ((5, 3), (5,)), ((2, 3, 4), (2, 4, 1)), ((2, 3, 4), (2, 1, 4))])
@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_nll_loss_takes_labels_with_a_size_one_dim(in_shape, label_shape, reduction):
    rng = np.random.default_rng(0)
    logp = np.log(rng.dirichlet(np.ones(in_shape[1]), size=int(np.prod(in_shape)) //
                                in_shape[1])).reshape([in_shape[0]] + list(in_shape[2:]) +
                                                      [in_shape[1]])
    logp = np.moveaxis(logp, -1, 1).astype("float32")
    label = rng.integers(0, in_shape[1], label_shape)
    x = skiff.to_tensor(logp, stop_gradient=False)
    got = F.nll_loss(x, skiff.to_tensor(label), reduction=reduction)
    want = paddle.nn.functional.nll_loss(paddle.to_tensor(logp), paddle.to_tensor(label),
                                         reduction=reduction)
    assert got.shape == list(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6)
    got.sum().backward()
    assert x.grad.shape == list(in_shape)


def test_nll_loss_names_a_label_that_does_not_fit():
    with pytest.raises(skiff.Error, match=r"nll_loss: .*label \[2, 4, 2\]"):
        F.nll_loss(skiff.zeros([2, 3, 4]), skiff.zeros([2, 4, 2], "int64"))


def test_model_fit_with_auc_and_nll_loss_on_column_labels():
    class Data(skiff.io.Dataset):
        def __init__(self):
            super().__init__()
            rng = np.random.default_rng(1)
            self.x = rng.standard_normal((64, 10)).astype("float32")
            self.y = rng.integers(0, 2, (64, 1)).astype("int64")

        def __getitem__(self, idx):
            return self.x[idx], self.y[idx]

        def __len__(self):
            return len(self.x)

    model = skiff.Model(skiff.nn.Sequential(skiff.nn.Linear(10, 2), skiff.nn.Softmax()))
    optim = skiff.optimizer.Adam(learning_rate=0.001, parameters=model.parameters())
    model.prepare(optim, loss=lambda x, y: F.nll_loss(skiff.log(x), y),
                  metrics=skiff.metric.Auc())
    model.fit(Data(), batch_size=16, verbose=0)
    result = model.evaluate(Data(), batch_size=16, verbose=0)
    assert 0.0 <= result["auc"] <= 1.0
