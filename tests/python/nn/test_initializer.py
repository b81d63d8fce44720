"""skiff.nn.initializer: values, statistics with Paddle's fan rules, seeding."""
import math

import numpy as np
import pytest

import skiff
import skiff.nn as nn
from skiff.nn import initializer as I
from skiff.framework.param import create_parameter


def values(init, shape, dtype="float32"):
    return create_parameter(shape, dtype, default_initializer=init).numpy()


def test_constant_and_assign():
    np.testing.assert_array_equal(values(I.Constant(1.5), [2, 3]), np.full([2, 3], 1.5))
    arr = np.arange(6, dtype="float64").reshape(2, 3)
    np.testing.assert_array_equal(values(I.Assign(arr), [2, 3], "float64"), arr)
    np.testing.assert_array_equal(values(I.Assign([[1, 2]]), [1, 2]), [[1.0, 2.0]])
    # as in Paddle, an eager parameter takes the value's shape; a program's must match
    assert values(I.Assign(arr), [3, 2]).shape == (2, 3)
    skiff.enable_static()
    try:
        with pytest.raises(skiff.Error, match=r"\[2, 3\].*\[3, 2\]"):
            values(I.Assign(arr), [3, 2])
    finally:
        skiff.disable_static()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_and_uniform_statistics(dtype):
    v = values(I.Normal(1.0, 2.0), [200, 100], dtype)
    assert v.dtype == np.dtype(dtype)
    assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 2.0) < 0.05
    u = values(I.Uniform(-3.0, 1.0), [200, 100], dtype)
    assert u.min() >= -3.0 and u.max() < 1.0
    assert abs(u.mean() + 1.0) < 0.05 and abs(u.std() - 4 / math.sqrt(12)) < 0.05


def test_truncated_normal_is_bounded_like_paddle():
    v = values(I.TruncatedNormal(0.0, 1.0), [20000])
    assert v.min() >= -2.0 and v.max() <= 2.0 and abs(v.mean()) < 0.03
    assert abs(v.std() - 0.8796) < 0.02  # std of N(0, 1) truncated to [-2, 2]
    # a and b are absolute bounds, as in Paddle
    w = values(I.TruncatedNormal(5.0, 1.0, a=-2.0, b=2.0), [5000])
    assert w.min() >= -2.0 and w.max() <= 2.0 and w.mean() > 1.5


def _std_ok(init, shape, expected):
    """The sample std within 4% of ``expected`` (about 4 standard errors here)."""
    return abs(values(init, shape).std() / expected - 1) < 0.04


def test_xavier_and_kaiming_use_paddles_fans():
    # Linear weight [in, out]: fan_in = in, fan_out = out.
    assert I.compute_fans([300, 200]) == (300, 200)
    # Conv filter [out, in / groups, kh, kw]: fans times the receptive field.
    assert I.compute_fans([64, 8, 3, 3]) == (72, 576)
    shape = [64, 8, 3, 3]
    fan_in, fan_out = 72, 576
    skiff.seed(0)
    assert _std_ok(I.XavierNormal(), shape, math.sqrt(2 / (fan_in + fan_out)))
    limit = math.sqrt(6 / (fan_in + fan_out))
    v = values(I.XavierUniform(), shape)
    assert np.abs(v).max() <= limit and np.abs(v).max() > 0.95 * limit
    assert _std_ok(I.KaimingNormal(), shape, math.sqrt(2 / fan_in))
    k = values(I.KaimingUniform(), shape)
    assert np.abs(k).max() <= math.sqrt(6 / fan_in) and np.abs(k).max() > 0.95 * math.sqrt(
        6 / fan_in)
    assert _std_ok(I.KaimingNormal(nonlinearity="tanh"), shape, 5 / 3 / math.sqrt(fan_in))
    assert _std_ok(I.XavierNormal(fan_in=10, fan_out=40, gain=2.0), [300, 200],
                   2 * math.sqrt(2 / 50))


def test_calculate_gain():
    assert I.calculate_gain("relu") == pytest.approx(math.sqrt(2))
    assert I.calculate_gain("leaky_relu", 0.2) == pytest.approx(math.sqrt(2 / 1.04))
    assert I.calculate_gain("sigmoid") == 1.0
    with pytest.raises(ValueError):
        I.calculate_gain("nope")


def test_seed_repeats_initial_values():
    skiff.seed(123)
    a = nn.Linear(4, 5).weight.numpy().copy()
    b = nn.Conv2D(2, 3, 3).weight.numpy().copy()
    skiff.seed(123)
    np.testing.assert_array_equal(nn.Linear(4, 5).weight.numpy(), a)
    np.testing.assert_array_equal(nn.Conv2D(2, 3, 3).weight.numpy(), b)
    assert not np.array_equal(nn.Linear(4, 5).weight.numpy(), a)


def test_layer_defaults():
    fc = nn.Linear(30, 50)
    limit = math.sqrt(6 / 80)
    assert np.abs(fc.weight.numpy()).max() <= limit
    np.testing.assert_array_equal(fc.bias.numpy(), np.zeros(50))
    conv = nn.Conv2D(16, 32, 3)
    assert abs(conv.weight.numpy().std() - math.sqrt(2 / (9 * 16))) < 0.01
    bn = nn.BatchNorm2D(4)
    np.testing.assert_array_equal(bn.weight.numpy(), np.ones(4))
    np.testing.assert_array_equal(bn._variance.numpy(), np.ones(4))
    lstm = nn.LSTM(3, 16)
    assert np.abs(lstm.weight_hh_l0.numpy()).max() <= 0.25


def test_calling_an_initializer_refills_a_parameter():
    fc = nn.Linear(2, 3)
    I.Constant(7.0)(fc.weight)
    np.testing.assert_array_equal(fc.weight.numpy(), np.full([2, 3], 7.0))


def test_global_initializer_applies_unless_param_attr_names_one():
    I.set_global_initializer(I.Constant(3.0), I.Constant(-1.0))
    try:
        fc = nn.Linear(2, 2)
        np.testing.assert_array_equal(fc.weight.numpy(), np.full([2, 2], 3.0))
        np.testing.assert_array_equal(fc.bias.numpy(), np.full([2], -1.0))
        own = nn.Linear(2, 2, weight_attr=skiff.nn.ParamAttr(initializer=I.Constant(0.5)))
        np.testing.assert_array_equal(own.weight.numpy(), np.full([2, 2], 0.5))
    finally:
        I.set_global_initializer(None, None)
    assert not np.all(nn.Linear(2, 2).weight.numpy() == 3.0)


def test_bad_arguments():
    with pytest.raises(ValueError):
        I.Uniform(1.0, 0.0)
    with pytest.raises(ValueError):
        I.TruncatedNormal(a=1.0, b=1.0)
