"""Dataset combinators, random_split and the samplers."""

import numpy as np
import pytest

from skiff.io import (
    ChainDataset,
    ComposeDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    WeightedRandomSampler,
    random_split,
)


class Range(Dataset):
    def __init__(self, start, stop):
        self.values = list(range(start, stop))

    def __len__(self):
        return len(self.values)

    def __getitem__(self, i):
        return self.values[i]


class Stream(IterableDataset):
    def __init__(self, values):
        self.values = values

    def __iter__(self):
        return iter(self.values)


def test_tensor_dataset_rows_and_shape_check():
    x = np.arange(12, dtype="float32").reshape(4, 3)
    y = np.arange(4)
    ds = TensorDataset([x, y])
    assert len(ds) == 4
    row, label = ds[2]
    np.testing.assert_array_equal(row, x[2])
    assert label == 2
    with pytest.raises(ValueError, match=r"\[\[4, 3\], \[5\]\]"):
        TensorDataset([x, np.arange(5)])


def test_tensor_dataset_accepts_tensor_like_objects():
    class FakeTensor:
        def numpy(self):
            return np.ones([3, 2])

    assert TensorDataset([FakeTensor()])[1][0].tolist() == [1.0, 1.0]


def test_subset_and_concat_and_compose():
    sub = Subset(Range(0, 10), [7, 2, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [7, 2, 5]
    both = ConcatDataset([Range(0, 3), Range(10, 12)])
    assert len(both) == 5 and [both[i] for i in range(5)] == [0, 1, 2, 10, 11]
    assert both[-1] == 11
    with pytest.raises(IndexError):
        both[5]
    assert len(Range(0, 2) + Range(5, 6)) == 3
    pairs = ComposeDataset([Range(0, 3), TensorDataset([np.arange(3) * 10])])
    assert pairs[2] == (2, 20)
    with pytest.raises(ValueError, match="different lengths"):
        ComposeDataset([Range(0, 3), Range(0, 4)])


def test_chain_dataset_iterates_in_turn():
    assert list(ChainDataset([Stream([1, 2]), Stream([3])])) == [1, 2, 3]
    with pytest.raises(TypeError):
        ChainDataset([Range(0, 2)])


def test_iterable_dataset_has_no_len_or_index():
    with pytest.raises(TypeError):
        len(Stream([1]))
    with pytest.raises(TypeError):
        Stream([1])[0]


def test_random_split_partitions_reproducibly():
    np.random.seed(0)
    parts = random_split(Range(0, 10), [7, 3])
    first = [[p[i] for i in range(len(p))] for p in parts]
    assert [len(p) for p in first] == [7, 3]
    assert sorted(first[0] + first[1]) == list(range(10))
    np.random.seed(0)
    again = [[p[i] for i in range(len(p))] for p in random_split(Range(0, 10), [7, 3])]
    assert again == first
    seeded = random_split(Range(0, 10), [5, 5], generator=np.random.default_rng(1))
    assert sorted(seeded[0].indices + seeded[1].indices) == list(range(10))


def test_random_split_fractions_and_errors():
    parts = random_split(Range(0, 11), [0.5, 0.3, 0.2])
    assert [len(p) for p in parts] == [6, 3, 2]  # floors 5, 3, 2; the remainder goes first
    with pytest.raises(ValueError, match="sum to 9"):
        random_split(Range(0, 10), [4, 5])


def test_subset_random_sampler_and_weighted_sampler():
    np.random.seed(2)
    picked = list(SubsetRandomSampler([3, 5, 9]))
    assert sorted(picked) == [3, 5, 9]
    np.random.seed(2)
    drawn = list(WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], num_samples=200))
    assert set(drawn) <= {1, 3} and 100 < drawn.count(3) < 190
    unique = list(WeightedRandomSampler([1, 1, 1], num_samples=3, replacement=False))
    assert sorted(unique) == [0, 1, 2]
    with pytest.raises(ValueError, match="without replacement"):
        WeightedRandomSampler([1, 0], num_samples=2, replacement=False)
