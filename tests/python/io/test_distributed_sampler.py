"""DistributedBatchSampler against paddle.io.DistributedBatchSampler: the same batches on
every rank (padding, shuffling by epoch, drop_last), the split covering the dataset, and
errors for bad arguments."""
import numpy as np
import pytest

import skiff.io as io


class Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


def batches(sampler, epochs=1):
    return [list(map(int, b)) for _ in range(epochs) for b in sampler]


@pytest.mark.parametrize("n,batch,replicas", [(10, 3, 1), (10, 3, 3), (17, 4, 2), (5, 2, 4),
                                              (2, 3, 5), (24, 4, 3), (7, 1, 7)])
@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("drop_last", [False, True])
def test_matches_paddle(n, batch, replicas, shuffle, drop_last):
    paddle_io = pytest.importorskip("paddle.io")
    for rank in range(replicas):
        ours = io.DistributedBatchSampler(Sized(n), batch, num_replicas=replicas, rank=rank,
                                          shuffle=shuffle, drop_last=drop_last)
        ref = paddle_io.DistributedBatchSampler(Sized(n), batch, num_replicas=replicas,
                                                rank=rank, shuffle=shuffle,
                                                drop_last=drop_last)
        assert (ours.num_samples, ours.total_size) == (ref.num_samples, ref.total_size)
        assert len(ours) == len(ref)
        assert batches(ours, 3) == batches(ref, 3)
        ours.set_epoch(7)
        ref.set_epoch(7)
        assert batches(ours) == batches(ref)
        assert ours.epoch == ref.epoch


def test_replicas_share_padded_dataset():
    n, replicas = 11, 3
    shares = [sum(batches(io.DistributedBatchSampler(Sized(n), 2, replicas, r)), [])
              for r in range(replicas)]
    assert all(len(s) == 4 for s in shares)  # ceil(11 / 3) each
    everything = sorted(sum(shares, []))
    assert everything == sorted(list(range(n)) + [0])  # padded with the head


def test_defaults_are_one_process_in_order():
    sampler = io.DistributedBatchSampler(Sized(7), 3)
    assert (sampler.nranks, sampler.local_rank) == (1, 0)
    assert batches(sampler) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(io.DistributedBatchSampler(Sized(7), 3, drop_last=True)) == 2


def test_shuffle_depends_on_epoch():
    sampler = io.DistributedBatchSampler(Sized(20), 20, shuffle=True)
    first, second = batches(sampler), batches(sampler)
    assert first != second and sorted(first[0]) == list(range(20))
    sampler.set_epoch(0)
    assert batches(sampler) == first
    expected = list(range(20))
    np.random.RandomState(1).shuffle(expected)
    assert second == [expected]


def test_works_as_dataloader_batch_sampler():
    data = io.TensorDataset([np.arange(10, dtype="float32").reshape(10, 1)])
    sampler = io.DistributedBatchSampler(data, 2, num_replicas=2, rank=1)
    loader = io.DataLoader(data, batch_sampler=sampler)
    got = [np.asarray(b[0].numpy() if hasattr(b[0], "numpy") else b[0]).ravel().tolist()
           for b in loader]
    assert got == [[2.0, 3.0], [6.0, 7.0], [9.0]]


def test_errors():
    with pytest.raises(ValueError, match="batch_size"):
        io.DistributedBatchSampler(Sized(4), 0)
    with pytest.raises(ValueError, match="num_replicas"):
        io.DistributedBatchSampler(Sized(4), 2, num_replicas=0)
    with pytest.raises(ValueError, match="rank"):
        io.DistributedBatchSampler(Sized(4), 2, num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="rank"):
        io.DistributedBatchSampler(Sized(4), 2, rank=-1)
    with pytest.raises(TypeError, match="shuffle"):
        io.DistributedBatchSampler(Sized(4), 2, shuffle=1)


def test_rank_and_replicas_default_to_the_launchers_environment(monkeypatch):
    from skiff.io import DistributedBatchSampler
    monkeypatch.setenv("SKIFF_RANK", "2")
    monkeypatch.setenv("SKIFF_WORLD_SIZE", "3")
    sampler = DistributedBatchSampler(list(range(12)), batch_size=2)
    assert (sampler.local_rank, sampler.nranks) == (2, 3)
    assert [i for b in sampler for i in b] == [4, 5, 10, 11]
