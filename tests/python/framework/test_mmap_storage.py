"""skiff.MmapStorage: slices of a mapped file as Tensors, against Paddle."""
import numpy as np
import paddle
import pytest

import skiff
from skiff.framework.arguments import ArgumentError


def test_slices_read_the_file_as_paddle_does(tmp_path):
    path = str(tmp_path / "t.bin")
    np.arange(20, dtype="float32").tofile(path)
    ours = skiff.MmapStorage(path, 80)
    theirs = paddle.MmapStorage(path, 80)
    for dtype, stop in (("float32", 20), ("int32", 5)):
        np.testing.assert_array_equal(
            ours.get_slice(dtype=getattr(skiff, dtype), start=0, stop=stop).numpy(),
            theirs.get_slice(dtype=getattr(paddle, dtype), start=0, stop=stop).numpy())
    # (Paddle 3.3.1 reads past the slice for start > 0; numpy says what the bytes hold)
    np.testing.assert_array_equal(ours.get_slice(skiff.float32, 3, 7).numpy(), [3, 4, 5, 6])


def test_writes_into_a_slice_never_reach_the_file(tmp_path):
    path = str(tmp_path / "t.bin")
    np.arange(4, dtype="float32").tofile(path)
    s = skiff.MmapStorage(path, 16).get_slice(skiff.float32, 0, 4)
    s.add_(skiff.ones_like(s))
    np.testing.assert_array_equal(s.numpy(), [1, 2, 3, 4])
    np.testing.assert_array_equal(np.fromfile(path, "float32"), [0, 1, 2, 3])


def test_bad_sizes_and_ranges_are_named(tmp_path):
    path = str(tmp_path / "t.bin")
    np.arange(4, dtype="float32").tofile(path)
    with pytest.raises(ArgumentError, match=r"nbytes 17 must be in \[1, 16\]"):
        skiff.MmapStorage(path, 17)
    with pytest.raises(FileNotFoundError, match="no file"):
        skiff.MmapStorage(str(tmp_path / "missing"), 4)
    with pytest.raises(ArgumentError, match=r"\[2, 5\) is outside the 4 float32 elements"):
        skiff.MmapStorage(path, 16).get_slice(skiff.float32, 2, 5)
