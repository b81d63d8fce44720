"""Views: reshape, flatten, squeeze, unsqueeze and detach share their source's memory in
eager mode, as Paddle's do (a write through one shows in the other), checked against
Paddle running the same steps."""
import numpy as np
import paddle
import pytest

import skiff


def _steps(lib):
    """Runs one script of views and writes under `lib`; returns what it observed."""
    seen = {}
    x = lib.arange(24).astype("float32")
    img = lib.reshape(x, [2, 3, 4])
    flat = lib.flatten(img, start_axis=1, stop_axis=2)
    img[0, 0, 0] = -1.0
    seen["flat after img write"] = flat.numpy().copy()
    seen["x after img write"] = x.numpy().copy()
    flat.add_(lib.ones_like(flat))
    seen["img after flat add_"] = img.numpy().copy()
    u = lib.unsqueeze(x, 0)
    s = lib.squeeze(u, 0)
    s.scale_(2.0)
    seen["u after s scale_"] = u.numpy().copy()
    x.zero_()
    for name, t in (("img", img), ("flat", flat), ("u", u), ("s", s)):
        seen[f"{name} after x zero_"] = t.numpy().copy()
    return seen


def test_writes_through_views_show_in_every_view_as_in_paddle():
    ours, theirs = _steps(skiff), _steps(paddle)
    assert ours.keys() == theirs.keys()
    for key in ours:
        np.testing.assert_array_equal(ours[key], theirs[key], err_msg=key)


def _detach_steps(lib):
    x = lib.to_tensor([1.0, 2.0], stop_gradient=False)
    d = x.detach()
    d[0] = 10.0
    y = (x * x).sum()
    y.backward()
    d.stop_gradient = False
    (d ** 3).sum().backward()
    return x.numpy(), x.grad.numpy(), d.grad.numpy(), d.stop_gradient, x.stop_gradient


def test_detach_shares_memory_but_not_history():
    for ours, theirs in zip(_detach_steps(skiff), _detach_steps(paddle)):
        np.testing.assert_array_equal(ours, theirs)


def test_a_value_fetched_before_a_write_stays_intact():
    x = skiff.arange(6).astype("float32")
    view = x.reshape([2, 3])
    before = x.numpy()
    view.add_(skiff.ones_like(view))
    np.testing.assert_array_equal(before, np.arange(6, dtype="float32"))
    np.testing.assert_array_equal(x.numpy(), np.arange(6, dtype="float32") + 1)


def test_saved_values_of_recorded_ops_are_not_changed_by_a_write_into_a_view():
    w = skiff.to_tensor([1.0, 2.0, 3.0], stop_gradient=False)
    h = w * 1.0                       # a non-leaf: in-place writes into it are allowed
    y = (h * h).sum()                 # saves h
    view = h.reshape([3, 1])
    with skiff.no_grad():
        view.scale_(100.0)
    np.testing.assert_array_equal(h.numpy(), [100.0, 200.0, 300.0])
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [2.0, 4.0, 6.0])


def test_a_write_that_changes_the_dtype_leaves_the_views():
    x = skiff.arange(4).astype("float32")
    view = x.reshape([2, 2])
    view.cast_("int32")
    x.add_(skiff.ones_like(x))
    assert view.dtype == skiff.int32
    np.testing.assert_array_equal(view.numpy(), [[0, 1], [2, 3]])
    np.testing.assert_array_equal(x.numpy(), [1, 2, 3, 4])


@pytest.mark.parametrize("make", [lambda x: x.reshape([-1]), lambda x: x.detach()])
def test_views_outlive_and_survive_their_source(make):
    x = skiff.ones([3, 2])
    view = make(x)
    del x
    view.add_(skiff.ones_like(view))
    np.testing.assert_array_equal(view.numpy().ravel(), np.full(6, 2.0, "float32"))
