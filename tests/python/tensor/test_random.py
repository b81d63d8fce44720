"""Random tensors (skiff/tensor/random.py): seeded through skiff.seed, in range, with the
expected moments; rand_like, randn_like, bernoulli and multinomial with and without
replacement."""
import numpy as np
import pytest

import skiff



def test_random_is_seeded_and_in_range():
    skiff.seed(123)
    a = [skiff.rand([100]).numpy(), skiff.randn([2, 50]).numpy(),
         skiff.randint(-3, 4, [200]).numpy(), skiff.uniform([50], min=2.0, max=5.0).numpy(),
         skiff.normal(1.0, 2.0, [50]).numpy(), skiff.randperm(10).numpy()]
    skiff.seed(123)
    b = [skiff.rand([100]).numpy(), skiff.randn([2, 50]).numpy(),
         skiff.randint(-3, 4, [200]).numpy(), skiff.uniform([50], min=2.0, max=5.0).numpy(),
         skiff.normal(1.0, 2.0, [50]).numpy(), skiff.randperm(10).numpy()]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(skiff.rand([100]).numpy(), a[0])
    rand01, normal, ints, unif, _, perm = a
    assert rand01.min() >= 0 and rand01.max() < 1
    assert ints.dtype == np.int64 and ints.min() == -3 and ints.max() == 3
    assert unif.min() >= 2 and unif.max() < 5
    assert sorted(perm.tolist()) == list(range(10))
    big = skiff.randn([20000]).numpy()
    assert abs(big.mean()) < 0.05 and abs(big.std() - 1) < 0.05
    assert skiff.randint(5, shape=[3], dtype="int32").dtype == "int32"
    with pytest.raises(skiff.Error, match="randint"):
        skiff.randint(3, 3)


def test_like_randoms_and_bernoulli():
    skiff.manual_seed(3)
    x = skiff.ones([400, 50], "float64")
    r = skiff.rand_like(x)
    assert r.dtype == skiff.float64 and r.shape == [400, 50]
    assert 0.0 <= r.numpy().min() and r.numpy().max() < 1.0
    assert abs(r.numpy().mean() - 0.5) < 0.01
    n = skiff.randn_like(x, dtype="float32")
    assert n.dtype == skiff.float32 and abs(n.numpy().std() - 1.0) < 0.02
    probs = skiff.full([20000], 0.3)
    b = skiff.bernoulli(probs).numpy()
    assert set(np.unique(b)) <= {0.0, 1.0} and abs(b.mean() - 0.3) < 0.015
    assert skiff.bernoulli(probs, p=0.0).numpy().sum() == 0
    y = skiff.zeros([20000])
    assert y.bernoulli_(0.8) is y and abs(y.numpy().mean() - 0.8) < 0.015
    skiff.seed(5)
    first = skiff.rand_like(x).numpy()
    skiff.manual_seed(5)
    np.testing.assert_array_equal(skiff.rand_like(x).numpy(), first)


def test_multinomial_with_replacement_follows_the_weights():
    w = np.array([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 1.0, 0.0]])
    s = skiff.multinomial(skiff.to_tensor(w), 40000, replacement=True).numpy()
    assert s.shape == (2, 40000) and s.dtype == np.int64
    freq = np.bincount(s[0], minlength=4) / 40000
    np.testing.assert_allclose(freq, w[0] / w[0].sum(), atol=0.01)
    assert (s[1] == 2).all()


def test_multinomial_without_replacement_draws_distinct_weighted():
    w = skiff.to_tensor([0.0, 1.0, 2.0, 7.0])
    counts = np.zeros(4)
    for _ in range(300):
        s = skiff.multinomial(w, 2).numpy()
        assert len(set(s.tolist())) == 2 and 0 not in s
        counts[s[0]] += 1
    # the first draw is category i with probability w_i / sum(w)
    np.testing.assert_allclose(counts / 300, [0, 0.1, 0.2, 0.7], atol=0.08)
    with pytest.raises(skiff.Error, match="multinomial"):
        skiff.multinomial(w, 5)
