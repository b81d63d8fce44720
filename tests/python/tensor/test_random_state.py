"""Generator state (get_rng_state / set_rng_state and the CUDA names, which are empty on a
CPU build as in a CPU-only Paddle) and the in-place random fills normal_, log_normal_,
cauchy_, exponential_, geometric_ and paddle.log_normal: draws repeat after a restore, and
the moments of large seeded samples match the distributions."""
import math

import numpy as np
import pytest

import skiff

N = 200_000


def sample(fill, *args, dtype="float64", **kwargs):
    skiff.seed(2024)
    x = skiff.zeros([N], dtype)
    out = getattr(x, fill)(*args, **kwargs)
    assert out is x or np.array_equal(out.numpy(), x.numpy())
    return x.numpy()


def test_set_rng_state_restores_the_draws():
    skiff.seed(7)
    state = skiff.get_rng_state()
    assert isinstance(state, list) and len(state) == 1
    first = [skiff.rand([4]).numpy(), skiff.randn([3]).numpy(), skiff.randint(0, 100, [5]).numpy()]
    skiff.set_rng_state(state)
    again = [skiff.rand([4]).numpy(), skiff.randn([3]).numpy(), skiff.randint(0, 100, [5]).numpy()]
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    later = skiff.rand([4]).numpy()
    assert not np.array_equal(later, first[0])
    skiff.set_rng_state(state, device="cpu")
    np.testing.assert_array_equal(skiff.rand([4]).numpy(), first[0])


def test_states_follow_the_seed():
    skiff.seed(11)
    s1 = skiff.get_rng_state()
    a = skiff.rand([3]).numpy()
    skiff.seed(11)
    assert skiff.get_rng_state() == s1
    np.testing.assert_array_equal(skiff.rand([3]).numpy(), a)
    x = skiff.zeros([5])
    skiff.set_rng_state(s1)
    x.normal_()
    skiff.set_rng_state(s1)
    np.testing.assert_array_equal(skiff.zeros([5]).normal_().numpy(), x.numpy())


def test_cuda_state_is_empty_on_the_cpu():
    assert skiff.get_cuda_rng_state() == []
    assert skiff.set_cuda_rng_state([]) is None


def test_rng_state_errors():
    with pytest.raises(TypeError, match="set_rng_state.*state_list"):
        skiff.set_rng_state(5)
    with pytest.raises(TypeError, match="set_rng_state"):
        skiff.set_rng_state([])
    with pytest.raises(ValueError, match="get_rng_state.*device"):
        skiff.get_rng_state("gpu:0")
    with pytest.raises(TypeError, match="set_cuda_rng_state"):
        skiff.set_cuda_rng_state(3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_normal_(dtype):
    v = sample("normal_", 3.0, 2.0, dtype=dtype)
    assert abs(v.mean() - 3.0) < 0.03 and abs(v.std() - 2.0) < 0.03
    assert skiff.normal_(skiff.zeros([2, 3], dtype)).dtype.name == dtype


def test_log_normal_():
    v = sample("log_normal_", 0.5, 0.5)
    assert v.min() > 0
    logs = np.log(v)
    assert abs(logs.mean() - 0.5) < 0.01 and abs(logs.std() - 0.5) < 0.01
    assert abs(v.mean() - math.exp(0.5 + 0.125)) < 0.02


def test_log_normal_function():
    skiff.seed(3)
    v = skiff.log_normal(1.0, 0.25, [N]).numpy()
    assert v.dtype == np.float32
    assert abs(np.log(v).mean() - 1.0) < 0.01 and abs(np.log(v).std() - 0.25) < 0.01
    mean = skiff.to_tensor(np.array([0.0, 2.0], "float64"))
    w = skiff.log_normal(mean, 0.1).numpy()
    assert w.shape == (2,) and abs(np.log(w[1]) - 2.0) < 0.6
    with pytest.raises(ValueError, match="log_normal.*shape"):
        skiff.log_normal(1.0, 2.0)


def test_cauchy_():
    v = sample("cauchy_", 1.5, 0.5)
    q1, med, q3 = np.quantile(v, [0.25, 0.5, 0.75])
    # the quartiles of Cauchy(loc, scale) are loc -/+ scale
    assert abs(med - 1.5) < 0.01 and abs(q1 - 1.0) < 0.01 and abs(q3 - 2.0) < 0.01


def test_exponential_():
    v = sample("exponential_", 2.0)
    assert v.min() >= 0
    assert abs(v.mean() - 0.5) < 0.005 and abs(v.std() - 0.5) < 0.005
    with pytest.raises(ValueError, match="exponential_.*lam"):
        skiff.zeros([2]).exponential_(0.0)


def test_geometric_follows_paddle():
    # paddle 3.3: x = log(u) / log1p(-probs), u uniform in (0, 1): exponential with
    # rate -log(1 - probs)
    v = sample("geometric_", 0.3)
    rate = -math.log(0.7)
    assert v.min() >= 0
    assert abs(v.mean() - 1 / rate) < 0.03 and abs(v.std() - 1 / rate) < 0.03
    probs = skiff.to_tensor(np.array([0.1, 0.9], "float32"))
    skiff.seed(1)
    w = skiff.zeros([N // 2, 2]).geometric_(probs).numpy()
    np.testing.assert_allclose(w.mean(0), [-1 / math.log(0.9), -1 / math.log(0.1)], rtol=0.02)
    with pytest.raises(ValueError, match="geometric_.*probs"):
        skiff.zeros([2]).geometric_(1.5)


def test_fills_need_float_tensors():
    i = skiff.to_tensor(np.zeros(3, "int64"))
    for name in ("normal_", "log_normal_", "cauchy_", "exponential_"):
        with pytest.raises(TypeError, match=name + ".*int64"):
            getattr(skiff.Tensor, name)(i)
    with pytest.raises(TypeError, match="normal_.*Tensor"):
        skiff.normal_([1.0, 2.0])
