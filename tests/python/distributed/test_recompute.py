"""recompute (skiff.distributed.fleet.utils.recompute): gradients equal those of the
plain call (use_reentrant either way), with several inputs (some without gradients), non-Tensor
arguments and dropout (the random state is replayed); the peak memory of a deep stack's
forward and backward is lower; recompute_sequential; wrong calls."""
import numpy as np
import pytest

import skiff
from skiff import nn
from skiff.device import max_memory_allocated, memory_allocated, reset_max_memory_allocated
from skiff.distributed.fleet.utils import recompute, recompute_sequential


@pytest.fixture(autouse=True)
def float64():
    previous = skiff.get_default_dtype()
    skiff.set_default_dtype("float64")
    yield
    skiff.set_default_dtype(previous)


class Block(nn.Layer):
    """Linear, dropout and tanh on x, plus a constant input times a plain number."""

    def __init__(self, width, p):
        super().__init__()
        self.linear = nn.Linear(width, width)
        self.dropout = nn.Dropout(p)

    def forward(self, x, bias, scale):
        return skiff.tanh(self.dropout(self.linear(x))) + bias * scale


def _gradients(block, x, bias, how):
    """Loss and gradients (x's and the block's parameters') of a call made ``how``."""
    block.clear_gradients()
    x = skiff.to_tensor(x, stop_gradient=False)
    bias = skiff.to_tensor(bias)  # stop_gradient: no gradient wanted
    skiff.seed(11)
    y = how(block, x, bias)
    after = skiff.rand([3]).numpy()  # the random state after the forward
    loss = (y * y).sum()
    loss.backward()
    return [float(loss.numpy()), after, x.grad.numpy()] + [p.grad.numpy()
                                                           for p in block.parameters()]


def _plain(block, x, bias):
    return block(x, bias, 0.5)


@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "not_reentrant"])
@pytest.mark.parametrize("p", [0.0, 0.5], ids=["no_dropout", "dropout"])
def test_gradients_equal_the_plain_call(reentrant, p):
    skiff.seed(3)
    block = Block(16, p)
    rng = np.random.RandomState(0)
    x, bias = rng.standard_normal((4, 16)), rng.standard_normal((4, 16))
    want = _gradients(block, x, bias, _plain)
    got = _gradients(block, x, bias, lambda b, x, bias: recompute(
        b, x, bias, 0.5, use_reentrant=reentrant))
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)
    if p:  # without the replayed state the second run draws another mask
        other = _gradients(block, x, bias, lambda b, x, bias: recompute(
            b, x, bias, 0.5, preserve_rng_state=False, use_reentrant=reentrant))
        assert not np.allclose(other[2], want[2])


def test_parameters_get_gradients_when_no_input_needs_one():
    skiff.seed(3)
    linear = nn.Linear(8, 8)
    x = skiff.to_tensor(np.ones((2, 8)))
    recompute(linear, x).sum().backward()
    np.testing.assert_allclose(linear.weight.grad.numpy(), np.full((8, 8), 2.0), atol=1e-12)


def _stack(depth=8, width=256):
    skiff.seed(5)
    return nn.LayerList([nn.Sequential(nn.Linear(width, width), nn.Tanh())
                         for _ in range(depth)])


def _peak_of_training(blocks, wrap):
    x = skiff.to_tensor(np.random.RandomState(1).standard_normal((512, 256)),
                        stop_gradient=False)
    base = memory_allocated()
    reset_max_memory_allocated()
    h = x
    for block in blocks:
        h = wrap(block, h)
    h.sum().backward()
    return max_memory_allocated() - base, [p.grad.numpy() for p in blocks.parameters()]


@pytest.mark.parametrize("reentrant", [True, False], ids=["reentrant", "not_reentrant"])
def test_recompute_lowers_the_peak_memory_of_a_deep_stack(reentrant):
    blocks = _stack()
    plain, want = _peak_of_training(blocks, lambda b, h: b(h))
    blocks.clear_gradients()
    recomputed, got = _peak_of_training(
        blocks, lambda b, h: recompute(b, h, use_reentrant=reentrant))
    print(f"peak bytes: plain {plain}, recomputed {recomputed}")
    assert recomputed < 0.6 * plain, (recomputed, plain)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)


def test_recompute_sequential_equals_the_plain_stack():
    blocks = _stack(depth=4, width=16)
    x = np.random.RandomState(2).standard_normal((3, 16))
    results = []
    for run in (lambda t: nn.Sequential(*blocks)(t),
                lambda t: recompute_sequential({"segments": 2}, nn.Sequential(*blocks), t)):
        blocks.clear_gradients()
        t = skiff.to_tensor(x, stop_gradient=False)
        run(t).sum().backward()
        results.append([t.grad.numpy()] + [p.grad.numpy() for p in blocks.parameters()])
    for w, g in zip(*results):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-12)


def test_wrong_calls_name_what_was_wrong():
    with pytest.raises(TypeError, match="function must be a Layer or a callable, got int"):
        recompute(3, skiff.ones([2]))
    x = skiff.to_tensor([1.0, 2.0], stop_gradient=False)
    with pytest.raises(ValueError, match="keyword argument 'x' is a Tensor that needs a "
                                         "gradient"):
        recompute(lambda x: x * 2, x=x)
    with pytest.raises(ValueError, match="segments must be 1 to 2 .*got 3"):
        recompute_sequential({"segments": 3}, [nn.Tanh(), nn.Tanh()], x)
