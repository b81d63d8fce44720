"""Sequential, LayerList, LayerDict, ParameterList and ParameterDict (skiff/nn/layer/
container.py): registration, indexing, state dict keys and forward."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn

from nn_reference import close, rand, set_param, tensor, torch_tensor


def test_sequential_runs_layers_in_order_like_torch():
    seq = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2)).double()
    ref = torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(),
                              torch.nn.Linear(5, 2)).double()
    for i in (0, 2):
        set_param(seq[i].weight, ref[i].weight.detach().numpy().T)
        set_param(seq[i].bias, ref[i].bias)
    x = rand(3, 4)
    xs, xt = tensor(x, True), torch_tensor(x, True)
    out, out_t = seq(xs), ref(xt)
    close(out, out_t)
    skiff.sum(out).backward()
    out_t.sum().backward()
    close(xs.grad, xt.grad)
    close(seq[0].weight.grad, ref[0].weight.grad.T)
    assert len(seq) == 3 and isinstance(seq[1], nn.Tanh) and len(seq[1:]) == 2
    assert [type(l).__name__ for l in seq] == ["Linear", "Tanh", "Linear"]
    del seq[1]
    assert list(seq._sub_layers) == ["0", "2"]
    seq[0] = nn.Linear(4, 5)
    assert seq[0] is seq._sub_layers["0"]
    with pytest.raises(IndexError):
        seq[5]


def test_sequential_from_pairs():
    seq = nn.Sequential(("first", nn.ReLU()), ("second", nn.Linear(2, 2)))
    assert list(seq.state_dict()) == ["second.weight", "second.bias"]


def test_layer_list_registers_and_renumbers():
    layers = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
    assert len(layers) == 3 and len(layers.parameters()) == 6
    layers.append(nn.Linear(2, 3))
    layers.insert(0, nn.ReLU())
    assert isinstance(layers[0], nn.ReLU) and layers[-1].weight.shape == [2, 3]
    del layers[0]
    assert list(layers._sub_layers) == ["0", "1", "2", "3"]
    layers.extend([nn.Tanh()])
    assert isinstance(layers[4], nn.Tanh)
    assert list(layers.state_dict())[:2] == ["0.weight", "0.bias"]
    sub = layers[1:3]
    assert isinstance(sub, nn.LayerList) and len(sub) == 2

    class Net(nn.Layer):
        def __init__(self):
            super().__init__()
            self.blocks = nn.LayerList([nn.Linear(3, 3), nn.Linear(3, 3)])

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return x

    net = Net()
    assert list(net.state_dict()) == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight",
                                      "blocks.1.bias"]
    assert net(tensor(rand(2, 3, dtype="float32"))).shape == [2, 3]


def test_layer_dict():
    d = nn.LayerDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    assert list(d.keys()) == ["a", "b"] and "a" in d and len(d) == 2
    d["c"] = nn.Tanh()
    assert isinstance(d["c"], nn.Tanh)
    d.pop("b")
    assert list(d) == ["a", "c"]
    assert list(d.state_dict()) == ["a.weight", "a.bias"]
    d.clear()
    assert len(d) == 0


def test_parameter_list():
    from skiff.framework.param import create_parameter
    params = nn.ParameterList([create_parameter([2], "float32") for _ in range(2)])
    params.append(create_parameter([3], "float32"))
    assert len(params) == 3 and params[2].shape == [3]
    assert list(params.state_dict()) == ["0", "1", "2"]
    assert len(list(params)) == 3
    with pytest.raises(TypeError):
        params.append(skiff.to_tensor(np.ones(2, "float32")))


def test_parameter_dict():
    a, b = skiff.create_parameter([2], "float32"), skiff.create_parameter([3], "float32")
    params = nn.ParameterDict({"a": a})
    params.update([("b", b)])
    params["c"] = skiff.create_parameter([1], "float32")
    assert list(params) == ["a", "b", "c"] and len(params) == 3
    assert params["b"] is b and len(params.parameters()) == 3
    holder = nn.Layer()
    holder.table = params
    assert [k for k, _ in holder.named_parameters()] == ["table.a", "table.b", "table.c"]
    with pytest.raises(TypeError, match="ParameterDict"):
        params["d"] = skiff.ones([2])
    with pytest.raises(ValueError, match="ParameterDict.update"):
        params.update([("x", a, b)])
