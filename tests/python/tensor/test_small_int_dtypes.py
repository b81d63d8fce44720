"""int8, uint8 and int16 tensors (the dtypes of quantized values): numpy and DLPack
exchange without conversion, casts (floats saturate), the ops that move values, .skparams
files and static programs."""
import numpy as np
import pytest

import skiff
from skiff import static

SMALL = ["int8", "uint8", "int16"]


def sample(dtype):
    info = np.iinfo(dtype)
    return np.array([[info.min, 0, 7], [info.max, 1, 100]], dtype=dtype)


@pytest.mark.parametrize("dtype", SMALL)
def test_numpy_round_trip_keeps_the_dtype(dtype):
    a = sample(dtype)
    t = skiff.to_tensor(a)
    assert t.dtype == dtype and t.dtype == getattr(skiff, dtype)
    assert t.numpy().dtype == np.dtype(dtype)
    np.testing.assert_array_equal(t.numpy(), a)
    assert skiff.iinfo(dtype).min == np.iinfo(dtype).min
    assert skiff.iinfo(dtype).max == np.iinfo(dtype).max


@pytest.mark.parametrize("dtype", SMALL)
def test_dlpack_exchange_with_torch(dtype):
    torch = pytest.importorskip("torch")
    a = sample(dtype)
    from_torch = skiff.from_dlpack(torch.from_numpy(a.copy()))
    assert from_torch.dtype == dtype
    np.testing.assert_array_equal(from_torch.numpy(), a)
    to_torch = torch.from_dlpack(skiff.to_tensor(a))
    assert str(to_torch.dtype) == f"torch.{dtype}"
    np.testing.assert_array_equal(to_torch.numpy(), a)


@pytest.mark.parametrize("dtype", SMALL)
def test_casts_to_and_from_float_match_numpy_where_numpy_is_defined(dtype):
    a = sample(dtype)
    np.testing.assert_array_equal(skiff.to_tensor(a).astype("float32").numpy(),
                                  a.astype(np.float32))
    inside = np.array([-3.7, -0.5, 0.5, 2.9, 99.99], np.float32)
    if dtype == "uint8":
        inside = np.abs(inside)
    np.testing.assert_array_equal(skiff.to_tensor(inside).astype(dtype).numpy(),
                                  inside.astype(dtype))
    info = np.iinfo(dtype)
    outside = np.array([-1e6, 1e6, np.nan, np.inf, -np.inf], np.float32)
    np.testing.assert_array_equal(skiff.to_tensor(outside).astype(dtype).numpy(),
                                  [info.min, info.max, 0, info.max, info.min])


@pytest.mark.parametrize("dtype", SMALL)
def test_ops_that_move_values(dtype):
    a = sample(dtype)
    t = skiff.to_tensor(a)
    np.testing.assert_array_equal(t.reshape([3, 2]).numpy(), a.reshape(3, 2))
    np.testing.assert_array_equal(t.transpose([1, 0]).numpy(), a.T)
    np.testing.assert_array_equal(skiff.concat([t, t], axis=0).numpy(), np.concatenate([a, a]))
    np.testing.assert_array_equal(skiff.flatten(t).numpy(), a.reshape(-1))
    np.testing.assert_array_equal(t.unsqueeze(0).numpy(), a[None])
    index = skiff.to_tensor(np.array([1, 0], np.int64))
    np.testing.assert_array_equal(skiff.gather(t, index, axis=0).numpy(), a[[1, 0]])
    np.testing.assert_array_equal(skiff.full([2, 2], 5, dtype=dtype).numpy(),
                                  np.full([2, 2], 5, dtype))
    np.testing.assert_array_equal(skiff.zeros_like(t).numpy(), np.zeros_like(a))
    assert skiff.full([1], 5, dtype=dtype).dtype == dtype
    with pytest.raises(skiff.Error, match=f"not representable as {dtype}"):
        skiff.full([1], 70000, dtype=dtype)


def test_params_files_keep_small_integers(tmp_path):
    values = {name: skiff.to_tensor(sample(name)) for name in SMALL}
    skiff.save(values, str(tmp_path / "q.pdparams"))
    loaded = skiff.load(str(tmp_path / "q.pdparams"))
    for name in SMALL:
        assert loaded[name].dtype == name
        np.testing.assert_array_equal(loaded[name].numpy(), sample(name))


def test_a_static_program_feeds_and_fetches_int8():
    skiff.enable_static()
    try:
        main, startup = static.Program(), static.Program()
        with static.program_guard(main, startup):
            x = static.data("x", [-1, 3], "int8")
            y = skiff.cast(x, "float32") * 0.5
            z = skiff.cast(y, "int8")
        a = sample("int8")
        got_y, got_z = static.Executor().run(main, feed={"x": a}, fetch_list=[y, z])
        np.testing.assert_array_equal(got_y, a.astype(np.float32) * 0.5)
        assert got_z.dtype == np.int8
        np.testing.assert_array_equal(got_z, (a.astype(np.float32) * 0.5).astype(np.int8))
    finally:
        skiff.disable_static()
