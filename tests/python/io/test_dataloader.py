"""DataLoader in one process: collation, order, shuffling, batch options, the Tensor hook."""

import types

import numpy as np
import pytest

from skiff.io import (
    BatchSampler,
    DataLoader,
    Dataset,
    IterableDataset,
    RandomSampler,
    SequenceSampler,
    default_collate_fn,
)
from skiff.io import collate


class Squares(Dataset):
    """Item i: (float32 [2] filled with i, i * i)."""

    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full([2], i, "float32"), i * i


class Records(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": np.arange(3, dtype="float64") + i, "y": float(i), "tag": f"r{i}"}


class Count(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(np.arange(self.n, dtype="int64"))


def test_collate_stacks_arrays_numbers_and_nested_fields():
    samples = [(np.zeros([2, 3]), 1, {"a": 1.5}), (np.ones([2, 3]), 2, {"a": 2.5})]
    batch = default_collate_fn(samples)
    images, labels, extra = batch
    assert images.shape == (2, 2, 3) and images[1].sum() == 6
    assert labels.dtype == np.int64 and labels.tolist() == [1, 2]
    assert extra["a"].tolist() == [1.5, 2.5]
    assert default_collate_fn(["a", "b"]) == ["a", "b"]


def test_collate_reports_mismatched_samples():
    with pytest.raises(RuntimeError, match="sample 1 has 1"):
        default_collate_fn([(1, 2), (3,)])
    with pytest.raises(RuntimeError, match=r"different shapes \[\[2\], \[3\]\]"):
        default_collate_fn([np.zeros(2), np.zeros(3)])
    with pytest.raises(TypeError, match="object"):
        default_collate_fn([object()])


def test_collate_uses_numpy_of_tensor_like_samples():
    class FakeTensor:
        def __init__(self, value):
            self.value = np.asarray(value, "float32")

        def numpy(self):
            return self.value

    batch = default_collate_fn([FakeTensor([1, 2]), FakeTensor([3, 4])])
    np.testing.assert_array_equal(batch, [[1, 2], [3, 4]])


@pytest.mark.parametrize("drop_last", [False, True])
def test_batches_follow_index_order(as_numpy, drop_last):
    loader = DataLoader(Squares(7), batch_size=3, drop_last=drop_last)
    batches = [[as_numpy(f) for f in b] for b in loader]
    assert len(loader) == len(batches) == (2 if drop_last else 3)
    labels = np.concatenate([b[1] for b in batches]).tolist()
    assert labels == [i * i for i in range(6 if drop_last else 7)]
    assert batches[0][0].shape == (3, 2) and batches[0][0].dtype == np.float32


def test_batches_match_paddle_without_shuffle(paddle, as_numpy):
    class PaddleSquares(paddle.io.Dataset):
        def __len__(self):
            return 7

        def __getitem__(self, i):
            return np.full([2], i, "float32"), i * i

    ours = list(DataLoader(Squares(7), batch_size=3))
    theirs = list(paddle.io.DataLoader(PaddleSquares(), batch_size=3))
    assert len(ours) == len(theirs)
    for mine, ref in zip(ours, theirs):
        assert isinstance(mine, list) and len(mine) == len(ref)
        for a, b in zip(mine, ref):
            np.testing.assert_array_equal(as_numpy(a), b.numpy())
            assert as_numpy(a).dtype == b.numpy().dtype


def test_dict_samples_give_dict_batches(as_numpy):
    batch = next(iter(DataLoader(Records(), batch_size=2)))
    assert as_numpy(batch["x"]).shape == (2, 3)
    assert as_numpy(batch["y"]).tolist() == [0.0, 1.0]
    assert batch["tag"] == ["r0", "r1"]


def test_shuffle_is_a_permutation_reproducible_under_numpy_seed(as_numpy):
    def epoch_order(seed):
        np.random.seed(seed)
        loader = DataLoader(Squares(20), batch_size=4, shuffle=True)
        return np.concatenate([as_numpy(b[1]) for b in loader]).tolist()

    first = epoch_order(3)
    assert sorted(first) == [i * i for i in range(20)]
    assert epoch_order(3) == first
    assert epoch_order(4) != first


def test_random_sampler_takes_a_numpy_generator():
    data = list(range(10))
    first = list(RandomSampler(data, generator=np.random.default_rng(5)))
    again = list(RandomSampler(data, generator=np.random.default_rng(5)))
    assert first == again and sorted(first) == data
    drawn = list(RandomSampler(data, replacement=True, num_samples=25))
    assert len(drawn) == 25 and all(0 <= i < 10 for i in drawn)
    with pytest.raises(ValueError, match="replacement=True"):
        RandomSampler(data, num_samples=3)


def test_batch_sampler_lengths_and_exclusive_options(as_numpy):
    sampler = BatchSampler(sampler=SequenceSampler(range(10)), batch_size=4, drop_last=False)
    assert len(sampler) == 3 and list(sampler)[-1] == [8, 9]
    loader = DataLoader(Squares(10), batch_sampler=sampler)
    assert [as_numpy(b[1]).tolist() for b in loader][-1] == [64, 81]
    with pytest.raises(ValueError, match="batch_sampler excludes"):
        DataLoader(Squares(10), batch_sampler=sampler, batch_size=2)
    with pytest.raises(ValueError, match="exactly one"):
        BatchSampler()


def test_batch_size_none_yields_single_samples(as_numpy):
    items = list(DataLoader(Squares(3), batch_size=None))
    assert len(items) == 3
    assert as_numpy(items[2][0]).shape == (2,) and int(as_numpy(items[2][1])) == 4


@pytest.mark.parametrize("drop_last,expected", [(False, [3, 3, 1]), (True, [3, 3])])
def test_iterable_dataset_batches(as_numpy, drop_last, expected):
    batches = [as_numpy(b) for b in DataLoader(Count(7), batch_size=3, drop_last=drop_last)]
    assert [len(b) for b in batches] == expected
    assert np.concatenate(batches).tolist() == list(range(sum(expected)))
    with pytest.raises(ValueError, match="shuffle"):
        DataLoader(Count(7), shuffle=True)
    with pytest.raises(TypeError, match="unknown"):
        len(DataLoader(Count(7)))


def test_return_list_false_gives_numpy_or_feed_dicts():
    batch = next(iter(DataLoader(Squares(4), batch_size=2, return_list=False)))
    assert all(isinstance(f, np.ndarray) for f in batch)
    feeds = [types.SimpleNamespace(name="image"), types.SimpleNamespace(name="label")]
    loader = DataLoader(Squares(4), batch_size=2, return_list=False, feed_list=feeds)
    feed = next(iter(loader))
    assert sorted(feed) == ["image", "label"] and feed["label"].tolist() == [0, 1]


def test_options_are_validated():
    with pytest.raises(TypeError, match="positional"):
        DataLoader(Squares(4), 2)  # options are keyword-only
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(Squares(4), num_workers=-1)
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(Squares(4), batch_size=0)


def test_to_tensor_hook_converts_every_array(monkeypatch):
    monkeypatch.setattr(collate, "to_tensor", lambda arr: ("tensor", arr.shape))
    batch = next(iter(DataLoader(Records(), batch_size=2)))
    assert batch["x"] == ("tensor", (2, 3)) and batch["tag"] == ["r0", "r1"]
    plain = next(iter(DataLoader(Squares(2), batch_size=2, return_list=False)))
    assert isinstance(plain[0], np.ndarray)
