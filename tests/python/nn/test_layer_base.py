"""skiff.nn.Layer: registration, traversal, state dicts, modes, hooks, printing, and
Parameter / ParamAttr / create_parameter."""
import collections

import numpy as np
import pytest

import skiff
import skiff.nn as nn
from skiff.framework.param import ParamAttr, Parameter, create_parameter, unique_name


class Block(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.bn = nn.BatchNorm1D(4)
        self.scale = self.create_parameter([4], default_initializer=nn.initializer.Constant(2.0))
        self.register_buffer("steps", skiff.to_tensor(np.zeros([1], "float32")))
        self.register_buffer("scratch", skiff.to_tensor(np.ones([2], "float32")),
                             persistable=False)

    def forward(self, x):
        return self.bn(self.fc(x)) * self.scale


def test_parameters_sublayers_and_buffers_are_registered_by_assignment():
    b = Block()
    names = [n for n, _ in b.named_parameters()]
    assert names == ["scale", "fc.weight", "fc.bias", "bn.weight", "bn.bias"]
    assert len(b.parameters()) == 5
    assert [n for n, _ in b.named_sublayers()] == ["fc", "bn"]
    assert b.children() == [b.fc, b.bn]
    assert [n for n, _ in b.named_buffers()] == ["steps", "scratch", "bn._mean", "bn._variance"]
    assert all(isinstance(p, Parameter) for p in b.parameters())
    assert not b.fc.weight.stop_gradient and b.fc.weight.persistable
    assert b.bn._mean.stop_gradient
    assert b.sublayers(include_self=True)[0] is b


def test_shared_parameters_are_listed_once():
    fc = nn.Linear(2, 2)
    seq = nn.Sequential(fc, nn.ReLU(), fc)
    assert len(seq.parameters()) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias"]


def test_reassigning_and_deleting_attributes():
    b = Block()
    b.fc = nn.Linear(3, 4)
    assert b._sub_layers["fc"] is b.fc
    with pytest.raises(TypeError):
        b.fc = 3
    b.scale = None
    assert "scale" not in [n for n, _ in b.named_parameters()]
    del b.bn
    assert not hasattr(b, "bn")
    with pytest.raises(AttributeError):
        b.missing


def test_assigning_before_init_is_an_error():
    class Bad(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(RuntimeError, match="super"):
        Bad()


def test_state_dict_keys_round_trip_and_errors():
    a, b = Block(), Block()
    sd = a.state_dict()
    assert list(sd) == ["scale", "steps", "fc.weight", "fc.bias", "bn.weight", "bn.bias",
                        "bn._mean", "bn._variance"]
    assert sd["fc.weight"] is a.fc.weight
    missing, unexpected = b.set_state_dict({k: v.numpy() * 1 for k, v in sd.items()})
    assert missing == [] and unexpected == []
    for k, v in b.state_dict().items():
        np.testing.assert_array_equal(v.numpy(), sd[k].numpy())
    # the values are copies: changing a no longer changes b
    a.fc.weight.set_value(np.zeros([3, 4], "float32"))
    assert np.abs(b.fc.weight.numpy()).sum() > 0
    missing, unexpected = b.set_state_dict({"fc.bias": np.ones(4, "float32"), "extra": 1})
    assert "fc.weight" in missing and unexpected == ["extra"]
    np.testing.assert_array_equal(b.fc.bias.numpy(), np.ones(4))
    with pytest.raises(skiff.Error, match=r"fc.weight.*\[2, 2\].*\[3, 4\]"):
        b.set_state_dict({"fc.weight": np.zeros([2, 2], "float32")})


def test_state_dict_by_parameter_name():
    a = nn.Linear(2, 3)
    b = nn.Linear(2, 3)
    values = {a.weight.name: np.full([2, 3], 5.0, "float32")}
    b2 = nn.Linear(2, 3)
    b2.weight.name = a.weight.name
    b2.set_state_dict(values, use_structured_name=False)
    np.testing.assert_array_equal(b2.weight.numpy(), values[a.weight.name])
    assert b.weight.name != a.weight.name


def test_train_eval_and_apply():
    b = Block()
    b.eval()
    assert not b.training and not b.fc.training and not b.bn.training
    b.train()
    assert b.bn.training
    seen = []
    b.apply(lambda layer: seen.append(type(layer).__name__))
    assert seen == ["Linear", "BatchNorm1D", "Block"]


def test_forward_hooks_run_and_can_replace_values():
    fc = nn.Linear(2, 2, bias_attr=False)
    fc.weight.set_value(np.eye(2, dtype="float32"))
    calls = []
    pre = fc.register_forward_pre_hook(lambda layer, inputs: (inputs[0] * 2,))
    post = fc.register_forward_post_hook(lambda layer, inputs, out: calls.append(1) or out + 1)
    x = skiff.to_tensor(np.ones([1, 2], "float32"))
    np.testing.assert_allclose(fc(x).numpy(), [[3.0, 3.0]])
    pre.remove()
    post.remove()
    np.testing.assert_allclose(fc(x).numpy(), [[1.0, 1.0]])
    assert calls == [1]


def test_names_follow_paddle():
    unique_name.counts.clear()
    fc, conv, bn = nn.Linear(2, 2), nn.Conv2D(1, 1, 1), nn.BatchNorm2D(2)
    assert fc.full_name() == "linear_0" and conv.full_name() == "conv2d_0"
    assert bn.full_name() == "batch_norm2d_0" and nn.ReLU().full_name() == "re_lu_0"
    assert (fc.weight.name, fc.bias.name) == ("linear_0.w_0", "linear_0.b_0")
    assert nn.Linear(2, 2).weight.name == "linear_1.w_0"


def test_repr_matches_paddle():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
    assert repr(seq) == ("Sequential(\n  (0): Linear(in_features=2, out_features=3, "
                         "dtype=float32)\n  (1): ReLU()\n)")
    assert repr(nn.Conv2D(2, 3, 3)) == "Conv2D(2, 3, kernel_size=[3, 3], data_format=NCHW)"
    assert repr(nn.BatchNorm2D(3)) == "BatchNorm2D(num_features=3, momentum=0.9, epsilon=1e-05)"
    assert repr(nn.MaxPool2D(2)) == "MaxPool2D(kernel_size=2, stride=None, padding=0)"
    assert repr(nn.Dropout(0.3)) == \
        "Dropout(p=0.3, axis=None, mode=upscale_in_train, inplace=False)"  # Paddle 3.3's


def test_to_converts_floating_values_and_rejects_other_devices():
    b = Block()
    b.to(dtype="float64")
    assert all(p.dtype == skiff.float64 for p in b.parameters())
    assert b.bn._mean.dtype == "float64"
    out = b(skiff.to_tensor(np.ones([2, 3])))
    assert out.dtype == skiff.float64
    assert b.to("cpu") is b
    with pytest.raises(skiff.Error, match="CPU"):
        b.to("gpu:0")


def test_clear_gradients():
    fc = nn.Linear(2, 2)
    skiff.sum(fc(skiff.to_tensor(np.ones([1, 2], "float32")))).backward()
    assert fc.weight.grad is not None
    fc.clear_gradients(set_to_zero=False)
    assert fc.weight.grad is None


def test_param_attr_controls_name_initializer_and_training():
    attr = ParamAttr(name="my_w", initializer=nn.initializer.Constant(0.5), learning_rate=0.1,
                     trainable=False, need_clip=False)
    fc = nn.Linear(2, 3, weight_attr=attr, bias_attr=False)
    assert fc.bias is None and fc.weight.name == "my_w"
    np.testing.assert_array_equal(fc.weight.numpy(), np.full([2, 3], 0.5))
    assert fc.weight.stop_gradient and not fc.weight.trainable
    assert fc.weight.optimize_attr == {"learning_rate": 0.1} and not fc.weight.need_clip
    fc.weight.trainable = True
    assert not fc.weight.stop_gradient
    assert len(fc.parameters()) == 1


def test_create_parameter_function():
    p = create_parameter([2, 3], "float64", is_bias=True)
    assert isinstance(p, Parameter) and p.shape == [2, 3] and p.dtype == "float64"
    np.testing.assert_array_equal(p.numpy(), np.zeros([2, 3]))
    q = create_parameter([4, 5], "float32")
    limit = np.sqrt(6.0 / 9.0)
    assert np.all(np.abs(q.numpy()) <= limit) and np.abs(q.numpy()).max() > 0
    assert p.name.startswith("create_parameter_") and p.name != q.name
    assert "Parameter containing" in repr(p)
    with pytest.raises(skiff.Error, match="known"):
        create_parameter([-1, 2], "float32")


def test_parameter_is_a_tensor_in_ops_and_backward():
    p = create_parameter([3], "float32", default_initializer=nn.initializer.Constant(2.0))
    y = skiff.sum(p * p)
    y.backward()
    np.testing.assert_allclose(p.grad.numpy(), [4.0, 4.0, 4.0])
    assert isinstance(p, skiff.Tensor)


def test_deepcopy_makes_independent_parameters():
    import copy
    fc = nn.Linear(2, 2)
    twin = copy.deepcopy(fc)
    assert isinstance(twin.weight, Parameter)
    twin.weight.set_value(np.zeros([2, 2], "float32"))
    assert np.abs(fc.weight.numpy()).sum() > 0


def test_sequential_from_ordered_dict_names_its_layers():
    seq = nn.Sequential(collections.OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert list(seq.state_dict()) == ["fc.weight", "fc.bias"]
    assert isinstance(seq["act"], nn.Tanh) and isinstance(seq[-1], nn.Tanh)


def test_an_assigned_tensor_becomes_a_non_persistable_buffer():
    class WithTable(nn.Layer):
        def __init__(self):
            super().__init__()
            self.table = skiff.to_tensor(np.ones([3], "float32"))

    layer = WithTable()
    assert [n for n, _ in layer.named_buffers()] == ["table"]
    assert list(layer.state_dict()) == []
    layer.to(dtype="float64")
    assert layer.table.dtype == "float64"
    layer.register_buffer("table", layer.table)  # now persistable
    assert list(layer.state_dict()) == ["table"]


def test_a_sublayer_or_parameter_replaced_keeps_its_place():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    setattr(model, "1", nn.Tanh())
    assert [type(layer).__name__ for layer in model] == ["Linear", "Tanh", "Linear"]
    layer = model[2]
    names = [name for name, _ in layer.named_parameters()]
    layer.weight = skiff.create_parameter([3, 1], "float32")
    assert [name for name, _ in layer.named_parameters()] == names
