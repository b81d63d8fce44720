"""dtypes (skiff/framework/dtype.py, dtype_limits.py): iinfo and finfo, and the dtype
aliases (float, double, long, int, half), against PaddlePaddle."""
import paddle
import pytest

import skiff



def test_iinfo_finfo_match_paddle():
    for name in ["int32", "int64"]:
        got, want = skiff.iinfo(name), paddle.iinfo(getattr(paddle, name))
        assert (got.bits, got.min, got.max, got.dtype) == (want.bits, want.min, want.max,
                                                           want.dtype)
    for name in ["float32", "float64", "bfloat16"]:
        got, want = skiff.finfo(getattr(skiff, name)), paddle.finfo(getattr(paddle, name))
        for attr in ["bits", "min", "max", "eps", "tiny", "smallest_normal", "resolution"]:
            assert getattr(got, attr) == pytest.approx(getattr(want, attr), rel=1e-12), attr
        assert got.dtype == want.dtype
    with pytest.raises(TypeError, match="iinfo"):
        skiff.iinfo("float32")
    with pytest.raises(TypeError, match="finfo"):
        skiff.finfo("int64")


def test_dtype_aliases_match_paddle():
    for name in ["float", "double", "long", "int"]:
        assert str(getattr(skiff, name)) == str(getattr(paddle, name)).replace("paddle", "skiff")
    assert skiff.half == skiff.float16  # float16 data is held as float32 in skiff
    assert skiff.ones([1], skiff.double).dtype == skiff.float64
