"""skiff.save / skiff.load of state dicts: round trips of layers and optimizers, files
readable by PaddlePaddle and back, and files that would run code are refused."""
import os
import pickle

import numpy as np
import pytest

import skiff
import skiff.nn as nn
from skiff.framework.io import load, save


def test_layer_and_optimizer_round_trip(tmp_path):
    skiff.seed(1)
    net = nn.Linear(3, 2)
    opt = skiff.optimizer.Adam(0.01, parameters=net.parameters())
    net(skiff.ones([4, 3])).sum().backward()
    opt.step()
    save(net.state_dict(), str(tmp_path / "net.pdparams"))
    save(opt.state_dict(), str(tmp_path / "net.pdopt"))
    state = load(str(tmp_path / "net.pdparams"))
    assert set(state) == set(net.state_dict())
    other = nn.Linear(3, 2)
    other.set_state_dict(state)
    x = skiff.ones([1, 3])
    np.testing.assert_array_equal(other(x).numpy(), net(x).numpy())
    opt_state = load(str(tmp_path / "net.pdopt"))
    assert set(opt_state) == set(opt.state_dict())
    arrays = load(str(tmp_path / "net.pdparams"), return_numpy=True)
    assert all(isinstance(v, np.ndarray) for v in arrays.values())


def test_nested_values_and_tensors(tmp_path):
    obj = {"a": [skiff.to_tensor(np.arange(3, dtype="int64")), 2.5, "text"],
           "b": {"c": skiff.zeros([2, 2], "float64")}, "n": None}
    path = str(tmp_path / "obj.pkl")
    save(obj, path)
    back = load(path)
    np.testing.assert_array_equal(back["a"][0].numpy(), [0, 1, 2])
    assert back["a"][1:] == [2.5, "text"] and back["n"] is None
    assert back["b"]["c"].dtype == skiff.float64


def test_files_that_run_code_are_refused(tmp_path):
    path = str(tmp_path / "evil.pdparams")
    with open(path, "wb") as f:
        pickle.dump({"x": os.getcwd}, f)
    with pytest.raises(skiff.Error, match="posix.getcwd"):
        load(path)
    with pytest.raises(skiff.Error, match="no file"):
        load(str(tmp_path / "missing"))


def test_files_move_between_skiff_and_paddle(tmp_path, paddle):
    net = nn.Linear(3, 2)
    path = str(tmp_path / "skiff.pdparams")
    save(net.state_dict(), path)
    state = paddle.load(path)
    pnet = paddle.nn.Linear(3, 2)
    pnet.set_state_dict(state)
    x = np.ones([1, 3], dtype="float32")
    np.testing.assert_allclose(pnet(paddle.to_tensor(x)).numpy(),
                               net(skiff.to_tensor(x)).numpy(), rtol=1e-6)
    ppath = str(tmp_path / "paddle.pdparams")
    paddle.save(pnet.state_dict(), ppath)
    back = load(ppath)
    net2 = nn.Linear(3, 2)
    net2.set_state_dict({k: back[k] for k in net2.state_dict()})
    np.testing.assert_allclose(net2(skiff.to_tensor(x)).numpy(),
                               pnet(paddle.to_tensor(x)).numpy(), rtol=1e-6)
