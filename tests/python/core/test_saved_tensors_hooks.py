"""autograd.saved_tensors_hooks on the values recorded ops save (and a PyLayer's): when
the hooks run, what they see and what the backward computes, against Paddle."""
import numpy as np
import paddle
import pytest

import skiff


def _run(lib):
    events = []

    def pack(t):
        events.append(("pack", t.numpy().tolist()))
        return t.numpy()

    def unpack(a):
        events.append(("unpack", a.tolist()))
        return lib.to_tensor(a)

    a = lib.to_tensor([1.0, 2.0], stop_gradient=False)
    b = lib.to_tensor([3.0, 5.0], stop_gradient=False)
    with lib.autograd.saved_tensors_hooks(pack, unpack):
        y = lib.multiply(a, b)
    z = lib.tanh(y)                       # recorded outside: no hooks
    z.sum().backward()
    return events, a.grad.numpy(), b.grad.numpy()


def test_each_saved_value_is_packed_in_forward_and_unpacked_in_backward_as_in_paddle():
    ours, theirs = _run(skiff), _run(paddle)
    assert ours[0] == theirs[0] == [("pack", [1.0, 2.0]), ("pack", [3.0, 5.0]),
                                    ("unpack", [1.0, 2.0]), ("unpack", [3.0, 5.0])]
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5)


def test_retain_graph_unpacks_again():
    unpacked = []
    x = skiff.to_tensor([2.0], stop_gradient=False)
    with skiff.autograd.saved_tensors_hooks(lambda t: t, lambda t: unpacked.append(1) or t):
        y = x * x
    y.backward(retain_graph=True)
    y.backward()
    assert len(unpacked) == 4 and x.grad.numpy().tolist() == [8.0]


def test_an_unpack_hook_must_give_back_the_saved_shape_and_a_tensor():
    x = skiff.to_tensor([2.0, 3.0], stop_gradient=False)
    with skiff.autograd.saved_tensors_hooks(lambda t: t, lambda t: skiff.ones([3])):
        y = (x * x).sum()
    with pytest.raises(skiff.Error, match=r"unpack hook gave float32\[3\] for a saved "
                                          r"float32\[2\]"):
        y.backward()
    with skiff.autograd.saved_tensors_hooks(lambda t: t, lambda t: "no"):
        y = (x * x).sum()
    with pytest.raises(TypeError, match="unpack_hook must return a Tensor, got str"):
        y.backward()


def test_ops_a_pack_hook_runs_save_plain_values():
    x = skiff.to_tensor([2.0], stop_gradient=False)
    packs = []

    def pack(t):
        packs.append(1)
        return t * 1.0          # an op inside the hook: not packed again
    with skiff.autograd.saved_tensors_hooks(pack, lambda t: t):
        y = x * x
    y.backward()
    assert len(packs) == 2 and x.grad.numpy().tolist() == [4.0]
