"""skiff.autograd: PyLayer (user-written backwards as tape nodes) against
torch.autograd.Function, autograd.backward, saved_tensors_hooks, and jacobian against
torch.autograd.functional.jacobian."""
import numpy as np
import pytest

import skiff
from skiff.autograd import PyLayer

torch = pytest.importorskip("torch")


def leaf(a):
    t = skiff.to_tensor(np.asarray(a))
    t.stop_gradient = False
    return t


def tleaf(a):
    return torch.tensor(np.asarray(a), requires_grad=True)


class Exp(PyLayer):
    @staticmethod
    def forward(ctx, x):
        y = skiff.exp(x)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensor()
        return dy * y


class TorchExp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, dy):
        (y,) = ctx.saved_tensors
        return dy * y


class StraightClip(PyLayer):
    """clip in the forward, identity gradient (straight-through)."""

    @staticmethod
    def forward(ctx, x, lo=-1.0, hi=1.0):
        return skiff.clip(x, lo, hi)

    @staticmethod
    def backward(ctx, dy):
        return dy


class TorchStraightClip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lo, hi):
        return x.clamp(lo, hi)

    @staticmethod
    def backward(ctx, dy):
        return dy, None, None


class MulAndArgmax(PyLayer):
    """(x * y, argmax of x): the second output is an integer, marked non-differentiable."""

    @staticmethod
    def forward(ctx, x, y):
        ctx.save_for_backward(x, y)
        idx = skiff.argmax(x)
        ctx.mark_non_differentiable(idx)
        return x * y, idx

    @staticmethod
    def backward(ctx, dout, didx):
        x, y = ctx.saved_tensor()
        assert didx is not None  # materialized
        return dout * y, dout * x


X = np.array([[0.3, -1.7, 2.2], [1.1, 0.05, -0.4]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_custom_exp_matches_torch(dtype):
    x = leaf(X.astype(dtype))
    y = Exp.apply(x)
    (y * y).sum().backward()
    tx = tleaf(X.astype(dtype))
    ty = TorchExp.apply(tx)
    (ty * ty).sum().backward()
    rtol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.numpy(), ty.detach().numpy(), rtol=rtol)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=rtol)
    assert not y.stop_gradient and not y.is_leaf


def test_straight_through_clip_matches_torch():
    x = leaf(X * 2)
    w = leaf(np.arange(6.0).reshape(2, 3))
    y = StraightClip.apply(x * w, hi=0.5)
    (y * 3).sum().backward()
    tx, tw = tleaf(X * 2), tleaf(np.arange(6.0).reshape(2, 3))
    (TorchStraightClip.apply(tx * tw, -1.0, 0.5) * 3).sum().backward()
    np.testing.assert_allclose(y.numpy(), np.clip(X * 2 * np.arange(6.0).reshape(2, 3), -1, .5))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-12)


def test_multiple_outputs_one_non_differentiable():
    x, y = leaf(X[0]), leaf(X[1])
    out, idx = MulAndArgmax.apply(x, y)
    assert idx.stop_gradient and not out.stop_gradient
    assert int(idx.numpy()) == 2
    (out * out).sum().backward()
    tx, ty = tleaf(X[0]), tleaf(X[1])
    ((tx * ty) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)


def test_layer_used_twice_and_retain_graph():
    x = leaf(X)
    z = Exp.apply(Exp.apply(x) * 0.5) + Exp.apply(x)
    loss = z.sum()
    loss.backward(retain_graph=True)
    first = x.grad.numpy().copy()
    loss.backward()
    tx = tleaf(X)
    (TorchExp.apply(TorchExp.apply(tx) * 0.5) + TorchExp.apply(tx)).sum().backward()
    np.testing.assert_allclose(first, tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), 2 * tx.grad.numpy(), rtol=1e-12)
    with pytest.raises(skiff.Error, match="through op 'reduce_sum' a second time"):
        loss.backward()
    s = Exp.apply(x.sum())  # a PyLayer node as the root
    s.backward()
    with pytest.raises(skiff.Error, match="PyLayer 'Exp' a second time.*retain_graph=True"):
        s.backward()


def test_skiff_grad_through_a_pylayer():
    x = leaf(X)
    y = Exp.apply(x * 2)
    (gx,) = skiff.grad([(y * x).sum()], [x])
    tx = tleaf(X)
    (tgx,) = torch.autograd.grad((TorchExp.apply(tx * 2) * tx).sum(), [tx])
    np.testing.assert_allclose(gx.numpy(), tgx.numpy(), rtol=1e-12)
    assert x.grad is None
    with pytest.raises(skiff.Error, match="create_graph"):
        skiff.grad([Exp.apply(x).sum()], [x], create_graph=True)


def test_unused_output_is_zeros_or_none():
    seen = []

    class Two(PyLayer):
        @staticmethod
        def forward(ctx, x, materialize):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, da, db):
            seen.append(db if db is None else db.numpy().tolist())
            return da * 2

    for materialize in (True, False):
        x = leaf(X[0])
        a, _ = Two.apply(x, materialize)
        a.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0, 2.0])
    assert seen == [[0.0, 0.0, 0.0], None]


def test_no_record_without_grad_and_input_returned():
    class Ident(PyLayer):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_not_inplace(x)
            return x

        @staticmethod
        def backward(ctx, dy):
            return dy * 5

    x = leaf(X[0])
    y = Ident.apply(x)
    assert y is not x and x.is_leaf
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [5.0, 5.0, 5.0])
    with skiff.no_grad():
        assert Exp.apply(leaf(X)).stop_gradient
    assert Exp.apply(skiff.to_tensor(X)).stop_gradient


def test_backward_errors_name_the_layer():
    class TooMany(PyLayer):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, dy):
            return dy, dy

    class BadShape(TooMany):
        @staticmethod
        def backward(ctx, dy):
            return dy.sum()

    class Raises(TooMany):
        @staticmethod
        def backward(ctx, dy):
            raise KeyError("from backward")

    with pytest.raises(ValueError, match="TooMany.backward returned 2 gradients.*1 Tensor"):
        TooMany.apply(leaf(X)).sum().backward()
    with pytest.raises(ValueError, match=r"BadShape.backward: gradient 0 has shape \[\]"):
        BadShape.apply(leaf(X)).sum().backward()
    with pytest.raises(KeyError, match="from backward"):
        Raises.apply(leaf(X)).sum().backward()
    with pytest.raises(TypeError, match="Bad.forward must return a Tensor"):
        class Bad(TooMany):
            @staticmethod
            def forward(ctx, x):
                return 3
        Bad.apply(leaf(X))


def test_saved_tensor_freed_and_hooks():
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t.numpy().copy()

    x = leaf(X)
    with skiff.autograd.saved_tensors_hooks(pack, lambda a: skiff.to_tensor(a)):
        y = Exp.apply(x)
    assert packed == [[2, 3]]
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(X), rtol=1e-12)


def test_autograd_backward_with_grad_tensors():
    x = leaf(X)
    a, b = Exp.apply(x), x * 3
    seed = skiff.to_tensor(np.full(X.shape, 0.5))
    skiff.autograd.backward([a, b], [seed, None])
    np.testing.assert_allclose(x.grad.numpy(), 0.5 * np.exp(X) + 3, rtol=1e-12)
    with pytest.raises(ValueError, match="autograd.backward: 1 grad_tensors for 2"):
        skiff.autograd.backward([a, b], [seed])
    with pytest.raises(TypeError, match="tensors\\[0\\] must be a Tensor"):
        skiff.autograd.backward([1.0])


def f_vec(x):
    return x * x * x.sum() + x[0]


def test_jacobian_matches_torch():
    v = np.array([0.5, -1.2, 2.0])
    x = leaf(v)
    J = skiff.autograd.jacobian(f_vec(x), x)
    assert J.shape == [3, 3]
    ref = torch.autograd.functional.jacobian(f_vec, torch.tensor(v)).numpy()
    np.testing.assert_allclose(J[:].numpy(), ref, rtol=1e-12)
    np.testing.assert_allclose(J[1].numpy(), ref[1], rtol=1e-12)
    s = skiff.autograd.jacobian((x * x).sum(), x)  # 0-d ys: shape [N]
    assert s.shape == [3]
    np.testing.assert_allclose(s[:].numpy(), 2 * v)
    y2 = Exp.apply(x)  # through a PyLayer too, and tuples of xs
    Js = skiff.autograd.jacobian(y2, (x, leaf(v)))
    np.testing.assert_allclose(Js[0][:].numpy(), np.diag(np.exp(v)), rtol=1e-12)
    np.testing.assert_allclose(Js[1][:].numpy(), np.zeros((3, 3)))


def test_batched_jacobian_matches_torch():
    b = np.random.default_rng(0).standard_normal((4, 3))
    w = np.random.default_rng(1).standard_normal((3, 2))
    x = leaf(b)
    y = skiff.tanh(skiff.matmul(x, skiff.to_tensor(w)))
    J = skiff.autograd.jacobian(y, x, batch_axis=0)
    assert J.shape == [4, 2, 3]
    tw = torch.tensor(w)
    ref = torch.autograd.functional.jacobian(lambda t: torch.tanh(t @ tw), torch.tensor(b))
    ref = np.stack([ref[i, :, i, :].numpy() for i in range(4)])
    np.testing.assert_allclose(J[:].numpy(), ref, rtol=1e-12)


def test_jacobian_errors():
    x = leaf(np.ones((2, 3)))
    with pytest.raises(ValueError, match="xs.ndim should be 0 or 1"):
        skiff.autograd.jacobian((x * 2).sum(axis=0), x)
    with pytest.raises(ValueError, match="ys.ndim should be 1 or 2"):
        skiff.autograd.jacobian(x.sum(), x, batch_axis=0)
    with pytest.raises(TypeError, match="jacobian: xs must be a Tensor"):
        skiff.autograd.jacobian(x.sum(), 3.0)
    with pytest.raises(ValueError, match="batch_axis should be None or 0"):
        skiff.autograd.jacobian(x * 2, x, batch_axis=1)


def test_saved_tensor_released_after_backward_and_grad_dtype_cast():
    contexts = []

    class Half(PyLayer):
        @staticmethod
        def forward(ctx, x):
            contexts.append(ctx)
            ctx.save_for_backward(x)
            return x * 0.5

        @staticmethod
        def backward(ctx, dy):
            return (dy * 0.5).astype("float64")  # cast back to the input's float32

    x = leaf(X.astype("float32"))
    y = Half.apply(x)
    y.sum().backward(retain_graph=True)
    assert len(contexts[0].saved_tensor()) == 1
    y.sum().backward()
    assert x.grad.dtype == skiff.float32
    np.testing.assert_allclose(x.grad.numpy(), np.ones(X.shape))
    with pytest.raises(RuntimeError, match="saved tensors were freed"):
        contexts[0].saved_tensor()


def test_static_mode_is_refused_clearly():
    skiff.enable_static()
    try:
        x = skiff.static.data("x", [3], "float32")
        with pytest.raises(skiff.Error, match="Exp.apply: PyLayer runs in eager mode only"):
            Exp.apply(x)
    finally:
        skiff.disable_static()
