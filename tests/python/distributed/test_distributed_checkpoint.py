"""save_state_dict / load_state_dict in one process: a round trip, and the mistakes a
loader can meet, named. (Across layouts: test_hybrid_gpt.py.)"""
import numpy as np
import pytest

import skiff
import skiff.distributed as dist


def test_round_trip_and_mistakes(tmp_path):
    skiff.seed(1)
    saved = skiff.nn.Linear(3, 2)
    dist.save_state_dict(saved.state_dict(), str(tmp_path / "ck"))
    loaded = skiff.nn.Linear(3, 2)
    dist.load_state_dict(loaded.state_dict(), str(tmp_path / "ck"))
    np.testing.assert_array_equal(loaded.weight.numpy(), saved.weight.numpy())
    np.testing.assert_array_equal(loaded.bias.numpy(), saved.bias.numpy())
    with pytest.raises(ValueError, match=r"'weight' is \[3, 2\] in .* but \[4, 2\] here"):
        dist.load_state_dict(skiff.nn.Linear(4, 2).state_dict(), str(tmp_path / "ck"))
    with pytest.raises(ValueError, match="'extra' is not in the checkpoint"):
        dist.load_state_dict({"extra": skiff.zeros([1])}, str(tmp_path / "ck"))
