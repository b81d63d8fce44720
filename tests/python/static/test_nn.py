"""static.nn layer functions against PyTorch with the same parameter values: fc
(flattened features, several inputs), conv2d, batch_norm (with running statistics),
embedding; parameters named, initialised by the startup program."""
import numpy as np
import torch

import skiff


def _startup_and_params(static):
    exe = static.Executor()
    exe.run(static.default_startup_program())
    scope = static.global_scope()
    return exe, lambda p: torch.tensor(np.array(scope.find_var(p.name).get_tensor()),
                                       requires_grad=True)


def test_fc_flattens_features_and_sums_inputs(static):
    x = static.data("x", [None, 2, 3], "float64")
    z = static.data("z", [None, 5], "float64")
    y = static.nn.fc([x, z], 4, num_flatten_dims=1, activation="sigmoid", name="joint")
    params = static.default_main_program().all_parameters()
    assert sorted(p.name for p in params) == ["joint.b_0", "joint.w_0", "joint.w_1"]
    assert y.shape == [-1, 4]
    loss = skiff.sum(y * y)
    grads = dict((p.name, g) for p, g in static.append_backward(loss))
    exe, value = _startup_and_params(static)
    rng = np.random.default_rng(7)
    xv, zv = rng.standard_normal((3, 2, 3)), rng.standard_normal((3, 5))
    names = ["joint.w_0", "joint.w_1", "joint.b_0"]
    got = exe.run(feed={"x": xv, "z": zv}, fetch_list=[y] + [grads[n] for n in names])
    w0, w1, b = (value(p) for p in sorted(params, key=lambda p: names.index(p.name)))
    ref = torch.sigmoid(torch.tensor(xv).reshape(3, 6) @ w0 + torch.tensor(zv) @ w1 + b)
    (ref * ref).sum().backward()
    np.testing.assert_allclose(got[0], ref.detach().numpy(), rtol=1e-12)
    for g, t in zip(got[1:], (w0, w1, b)):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(b.detach().numpy(), 0.0)  # biases start at zero


def test_conv2d_matches_torch(static):
    x = static.data("img", [None, 2, 5, 5])
    y = static.nn.conv2d(x, num_filters=3, filter_size=3, stride=1, padding=1, act="relu")
    w, b = sorted(static.default_main_program().all_parameters(), key=lambda p: p.ndim)[::-1]
    assert w.shape == [3, 2, 3, 3] and b.shape == [3]
    exe, value = _startup_and_params(static)
    xv = np.random.default_rng(8).standard_normal((2, 2, 5, 5)).astype(np.float32)
    got, = exe.run(feed={"img": xv}, fetch_list=[y])
    ref = torch.relu(torch.nn.functional.conv2d(torch.tensor(xv), value(w), value(b),
                                                padding=1))
    np.testing.assert_allclose(got, ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    std = value(w).detach().numpy().std()
    assert 0.2 < std < 0.8  # normal with std sqrt(2 / 18) = 0.33


def test_batch_norm_trains_and_updates_running_statistics(static):
    x = static.data("x", [None, 3, 2, 2])
    y = static.nn.batch_norm(x, momentum=0.8, name="bn")
    main = static.default_main_program()
    assert sorted(p.name for p in main.all_parameters()) == ["bn.b_0", "bn.w_0", "bn.w_1",
                                                             "bn.w_2"]
    assert [p.name for p in main.all_parameters() if p.trainable] == ["bn.w_0", "bn.b_0"]
    exe, _ = _startup_and_params(static)
    xv = np.random.default_rng(9).standard_normal((4, 3, 2, 2)).astype(np.float32) * 2 + 1
    got, = exe.run(feed={"x": xv}, fetch_list=[y])
    bn = torch.nn.BatchNorm2d(3, momentum=0.2)
    ref = bn(torch.tensor(xv))
    np.testing.assert_allclose(got, ref.detach().numpy(), rtol=1e-4, atol=1e-5)
    scope = static.global_scope()
    np.testing.assert_allclose(np.array(scope.find_var("bn.w_1").get_tensor()),
                               bn.running_mean.numpy(), rtol=1e-5)
    var = np.array(scope.find_var("bn.w_2").get_tensor())
    biased = xv.transpose(1, 0, 2, 3).reshape(3, -1).var(axis=1)
    np.testing.assert_allclose(var, 0.8 + 0.2 * biased, rtol=1e-5)


def test_embedding_rows_and_gradients(static):
    ids = static.data("ids", [None, 2], "int64")
    e = static.nn.embedding(ids, size=[6, 3], padding_idx=0)
    loss = skiff.sum(e * e)
    (table, grad), = static.append_backward(loss)
    exe, value = _startup_and_params(static)
    idv = np.array([[1, 0], [4, 1]])
    got = exe.run(feed={"ids": idv}, fetch_list=[e, grad])
    w = value(table)
    # Paddle's padding_idx: those rows read as zeros (and get no gradient).
    keep = torch.tensor(idv != 0, dtype=w.dtype)[..., None]
    ref = torch.nn.functional.embedding(torch.tensor(idv), w, padding_idx=0) * keep
    (ref * ref).sum().backward()
    np.testing.assert_allclose(got[0], ref.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(got[1], w.grad.numpy(), rtol=1e-6)
