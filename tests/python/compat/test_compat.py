"""skiff.compat (paddle.compat): the PyTorch-style functions and layers against torch and
Paddle's compat, and enable_compat / disable_compat: ``import torch`` gives skiff
everywhere, only inside a scope, never inside blocked modules, and the real torch again
after."""
import importlib
import sys

import numpy as np
import paddle
import pytest
import torch
import torch.nn.functional as TF

import skiff
from skiff import compat

RNG = np.random.default_rng(0)
X = RNG.standard_normal([2, 3, 4]).astype("float32")


def close(a, b, tol=1e-6):
    np.testing.assert_allclose(np.asarray(a.numpy() if hasattr(a, "numpy") else a),
                               b.detach().numpy() if hasattr(b, "detach") else b,
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("shape", [[5], [2, 3], [2, 3, 4], [2, 1, 3, 2]])
def test_softmax_implicit_and_given_dims(shape):
    x = RNG.standard_normal(shape).astype("float32")
    ours = compat.nn.functional.softmax(skiff.to_tensor(x))
    close(ours, paddle.compat.nn.functional.softmax(paddle.to_tensor(x)).numpy())
    close(ours, TF.softmax(torch.tensor(x), dim=0 if len(shape) in (1, 3) else 1))
    close(compat.nn.functional.softmax(skiff.to_tensor(x), -1), TF.softmax(torch.tensor(x), -1))
    out = compat.nn.functional.softmax(skiff.to_tensor(x), 0, dtype="float64")
    assert out.dtype == skiff.float64
    close(out, TF.softmax(torch.tensor(x), 0, dtype=torch.float64))
    close(compat.nn.Softmax(dim=-1)(skiff.to_tensor(x)), TF.softmax(torch.tensor(x), -1))


def test_linear_takes_torch_layout_with_gradients():
    w = RNG.standard_normal([5, 4]).astype("float32")
    b = RNG.standard_normal([5]).astype("float32")
    xs, ws = skiff.to_tensor(X, stop_gradient=False), skiff.to_tensor(w, stop_gradient=False)
    xt, wt = torch.tensor(X, requires_grad=True), torch.tensor(w, requires_grad=True)
    ours, ref = compat.nn.functional.linear(xs, ws, skiff.to_tensor(b)), TF.linear(
        xt, wt, torch.tensor(b))
    close(ours, ref, 1e-5)
    ours.sum().backward()
    ref.sum().backward()
    close(xs.grad, xt.grad, 1e-5)
    close(ws.grad, wt.grad, 1e-5)
    layer = compat.nn.Linear(4, 5)
    assert layer.weight.shape == [5, 4] and layer.bias.shape == [5]
    assert np.abs(layer.weight.numpy()).max() <= 0.5  # U(-1/sqrt(4), 1/sqrt(4))
    close(layer(skiff.to_tensor(X)), TF.linear(torch.tensor(X), torch.tensor(
        layer.weight.numpy()), torch.tensor(layer.bias.numpy())), 1e-5)
    assert compat.nn.Linear(4, 5, bias=False).bias is None


@pytest.mark.parametrize("pad,mode", [((1, 2), "constant"), ((1, 0, 0, 2), "constant"),
                                      ((1, 1, 2, 0, 1, 1), "constant"), ((1, 2), "reflect"),
                                      ((2, 1), "replicate"), ((1, 2), "circular")])
def test_pad_in_torch_order(pad, mode):
    kw = dict(value=1.5) if mode == "constant" else {}
    close(compat.nn.functional.pad(skiff.to_tensor(X), pad, mode, **kw),
          TF.pad(torch.tensor(X), pad, mode, **kw))


def test_max_min_sort_median_split_equal_as_torch():
    x = np.array([[3., 1., 2., 1.], [0., 5., 5., -1.]], "float32")
    s, t = skiff.to_tensor(x), torch.tensor(x)
    close(compat.max(s), torch.max(t))
    for fn, ref in ((compat.max, torch.max), (compat.min, torch.min)):
        values, indices = fn(s, 1)
        close(values, ref(t, 1).values)
        close(indices, ref(t, 1).indices)
        got = fn(s, dim=0, keepdim=True)
        assert got.values.shape == [1, 4]
        close(got.indices, ref(t, dim=0, keepdim=True).indices)
        close(fn(s, skiff.to_tensor([1., 1., 9., 0.])), ref(t, torch.tensor([1., 1., 9., 0.])))
    got = compat.sort(s, 1, descending=True)
    close(got.values, torch.sort(t, dim=1, descending=True, stable=True).values)
    close(got.indices, torch.sort(t, dim=1, descending=True, stable=True).indices)
    close(compat.median(s), torch.median(t))
    got = compat.median(s, 1)
    close(got.values, torch.median(t, 1).values)
    close(got.indices, torch.median(t, 1).indices)
    n = np.array([[np.nan, 1., 3.], [2., np.nan, np.nan]], "float32")
    close(compat.nanmedian(skiff.to_tensor(n), 1).values,
          torch.nanmedian(torch.tensor(n), 1).values)
    for size in (2, 3, [1, 3]):
        ours = compat.split(skiff.arange(4), size)
        assert [o.numpy().tolist() for o in ours] == [r.tolist() for r in torch.split(
            torch.arange(4), size)]
    assert compat.equal(s, s) is True and compat.equal(s, s[:1]) is False
    assert isinstance(compat.seed(), int)


def test_errors():
    s = skiff.to_tensor(X)
    with pytest.raises(ValueError, match="split: the sections"):
        compat.split(s, [1, 2])
    with pytest.raises(ValueError, match="pad: mode 'reflect' pads"):
        compat.nn.functional.pad(skiff.ones([3]), (1, 1), "reflect")
    with pytest.raises(TypeError, match="softmax: dtype must be a floating dtype"):
        compat.nn.functional.softmax(s, 0, dtype="int32")
    with pytest.raises(ValueError, match="enable_compat: backend must be 'torch'"):
        skiff.enable_compat(backend="jax")


@pytest.fixture
def packages(tmp_path, monkeypatch):
    """Two packages that import torch, named for this test; compat off after it."""
    for name in ("compat_scoped_pkg", "compat_blocked_pkg"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(
            "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield
    skiff.disable_compat()
    for name in ("compat_scoped_pkg", "compat_blocked_pkg"):
        sys.modules.pop(name, None)


def test_import_torch_gives_skiff_and_the_real_torch_after(packages):
    skiff.enable_compat()
    import torch as proxied  # noqa: PLC0415 - the import under test
    assert proxied is not torch and proxied.sin is skiff.sin
    assert proxied.nn.functional.softmax is compat.nn.functional.softmax
    assert proxied.nn.functional.relu is skiff.nn.functional.relu
    assert proxied.max is compat.max and proxied.nn.Linear is compat.nn.Linear
    import torch.nn.functional as F  # noqa: PLC0415 - the import under test
    assert F.softmax is compat.nn.functional.softmax
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("torch.no_such_module")
    skiff.disable_compat()
    import torch as real  # noqa: PLC0415 - the import under test
    assert real is torch and sys.modules["torch.nn.functional"] is TF


def test_scope_and_blocked_modules(packages):
    skiff.enable_compat(scope={"compat_scoped_pkg"})
    import compat_scoped_pkg  # noqa: PLC0415 - the import under test
    assert compat_scoped_pkg.torch.sin is skiff.sin
    assert compat_scoped_pkg.F.softmax is compat.nn.functional.softmax
    assert compat_scoped_pkg.nn.Linear is compat.nn.Linear
    import torch as outside  # noqa: PLC0415 - the import under test
    assert outside is torch  # not in the scope
    skiff.disable_compat()
    skiff.enable_compat(blocked_modules="compat_blocked_pkg")
    import compat_blocked_pkg  # noqa: PLC0415 - the import under test
    assert compat_blocked_pkg.torch is torch and compat_blocked_pkg.F is TF
    import torch as inside  # noqa: PLC0415 - the import under test
    assert inside.sin is skiff.sin
