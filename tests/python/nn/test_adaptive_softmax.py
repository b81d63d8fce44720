"""adaptive_log_softmax_with_loss / AdaptiveLogSoftmaxWithLoss against PyTorch (values and
gradients in float64) and PaddlePaddle, log_prob and predict, a 0-D label, a static
program, and errors."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from nn_reference import close, rand
from static_twin import assert_static_matches_eager

IN, CLASSES, CUTOFFS = 8, 12, [3, 7]
LABELS = np.array([0, 4, 11, 2, 7, 5, 3, 9, 1])


def pair(head_bias=True, div_value=2.0, dtype="float64"):
    """A skiff layer and a torch layer holding the same weights."""
    old = skiff.get_default_dtype()
    skiff.set_default_dtype(dtype)
    try:
        ours = nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, div_value=div_value,
                                             head_bias=head_bias)
    finally:
        skiff.set_default_dtype(old)
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, div_value=div_value,
                                                 head_bias=head_bias).double()
    with torch.no_grad():
        params = [(ours.head_weight, theirs.head.weight)]
        for i, proj in enumerate(theirs.tail):
            params += [(ours.tail_weights[i][0], proj[0].weight),
                       (ours.tail_weights[i][1], proj[1].weight)]
        for seed, (p, t) in enumerate(params):
            value = rand(*t.shape, seed=seed)
            t.copy_(torch.tensor(value))
            p.set_value(np.ascontiguousarray(value.T).astype(dtype))
        if head_bias:
            value = rand(*theirs.head.bias.shape, seed=50)
            theirs.head.bias.copy_(torch.tensor(value))
            ours.head_bias.set_value(value.astype(dtype))
    return ours, theirs, params


@pytest.mark.parametrize("head_bias", [False, True])
def test_layer_matches_torch_with_gradients(head_bias):
    ours, theirs, params = pair(head_bias)
    x = rand(len(LABELS), IN, seed=9)
    xs, xt = skiff.to_tensor(x), torch.tensor(x, requires_grad=True)
    xs.stop_gradient = False
    out, loss = ours(xs, skiff.to_tensor(LABELS))
    tout, tloss = theirs(xt, torch.tensor(LABELS))
    close(out, tout)
    close(loss, tloss)
    w = rand(len(LABELS), seed=10)
    (skiff.sum(out * skiff.to_tensor(w)) + loss).backward()
    ((tout * torch.tensor(w)).sum() + tloss).backward()
    close(xs.grad, xt.grad, what="input")
    for p, t in params:
        close(p.grad, t.grad.T, what=p.name)
    if head_bias:
        close(ours.head_bias.grad, theirs.head.bias.grad, what="head bias")


def test_log_prob_and_predict_match_torch():
    ours, theirs, _ = pair(div_value=4.0)
    x = rand(10, IN, seed=11, low=-3, high=3)
    log_probs = ours.log_prob(skiff.to_tensor(x))
    close(log_probs, theirs.log_prob(torch.tensor(x)))
    np.testing.assert_allclose(np.exp(log_probs.numpy()).sum(1), 1.0, rtol=1e-12)
    predicted = ours.predict(skiff.to_tensor(x))
    assert predicted.numpy().dtype == np.float32
    np.testing.assert_array_equal(predicted.numpy(), theirs.predict(torch.tensor(x)).numpy())


def test_functional_matches_paddle(paddle):
    layer = paddle.nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, CUTOFFS, head_bias=True)
    x = rand(len(LABELS), IN, dtype="float32", seed=12)
    want_out, want_loss = layer(paddle.to_tensor(x), paddle.to_tensor(LABELS))
    tails = [[skiff.to_tensor(w.numpy()) for w in pair_] for pair_ in layer.tail_weights]
    out, loss = F.adaptive_log_softmax_with_loss(
        skiff.to_tensor(x), skiff.to_tensor(LABELS), skiff.to_tensor(layer.head_weight.numpy()),
        tails, layer.cutoffs, skiff.to_tensor(layer.head_bias.numpy()))
    close(out, want_out.numpy(), "float32")
    close(loss, want_loss.numpy(), "float32")


def test_zero_dim_label():
    ours, theirs, _ = pair()
    x = rand(IN, seed=13)
    out, loss = ours(skiff.to_tensor(x), skiff.to_tensor(np.array(8)))
    tout, tloss = theirs(torch.tensor(x), torch.tensor(8))
    assert list(out.shape) == []
    close(out, tout)
    close(loss, tloss)


def test_static_matches_eager():
    ours, _, _ = pair()
    labels = skiff.to_tensor(LABELS)
    assert_static_matches_eager(lambda x: ours(x, labels)[0], {"x": rand(9, IN, seed=14)},
                                ("x",), rtol=1e-12, atol=1e-14)


def test_errors():
    with pytest.raises(ValueError, match="AdaptiveLogSoftmaxWithLoss: cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, [7, 3])
    with pytest.raises(ValueError, match="AdaptiveLogSoftmaxWithLoss: cutoffs"):
        nn.AdaptiveLogSoftmaxWithLoss(IN, CLASSES, [3, 12])
    ours, _, _ = pair()
    with pytest.raises(ValueError, match="adaptive_log_softmax_with_loss: label values"):
        ours(skiff.to_tensor(rand(2, IN)), skiff.to_tensor(np.array([0, 12])))
    with pytest.raises(ValueError, match="adaptive_log_softmax_with_loss: a 1-D label"):
        ours(skiff.to_tensor(rand(2, 2, IN)), skiff.to_tensor(np.array([0, 1])))
    with pytest.raises(ValueError, match="adaptive_log_softmax_with_loss: label must"):
        ours(skiff.to_tensor(rand(2, IN)), skiff.to_tensor(np.array([[0], [1]])))
