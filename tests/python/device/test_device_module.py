"""skiff.device answers as Paddle 3.3's CPU build does."""
import numpy as np
import paddle
import pytest

import skiff


def test_queries_match_paddle_cpu_build():
    d, pd = skiff.device, paddle.device
    assert d.get_device() == pd.get_device() == "cpu"
    assert d.get_all_device_type() == pd.get_all_device_type()
    assert d.get_available_device() == pd.get_available_device()
    assert d.get_all_custom_device_type() == pd.get_all_custom_device_type()
    assert d.get_available_custom_device() == pd.get_available_custom_device()
    assert d.device_count() == pd.device_count() == 0
    assert d.is_available() == pd.is_available()
    for name in ["is_compiled_with_cuda", "is_compiled_with_rocm", "is_compiled_with_xpu",
                 "is_compiled_with_ipu", "is_compiled_with_cinn"]:
        assert getattr(d, name)() is False, name
    assert d.is_compiled_with_custom_device("npu") is False
    assert d.current_device() == 0
    assert d.is_bf16_supported() is True


def test_set_device():
    place = skiff.device.set_device("cpu")
    assert place == skiff.CPUPlace() and repr(place) == "Place(cpu)"
    assert skiff.device.get_device() == "cpu"
    with pytest.raises(ValueError, match="set_device.*gpu:0"):
        skiff.device.set_device("gpu:0")
    with pytest.raises(ValueError, match="set_device.*'tpu'"):
        skiff.device.set_device("tpu")
    with pytest.raises(ValueError, match="set_device"):
        skiff.device.set_device(3)


def test_synchronize():
    assert skiff.device.synchronize() is None
    assert skiff.device.synchronize("cpu") is None
    with pytest.raises(TypeError, match="synchronize"):
        skiff.device.synchronize("gpu:0")


def test_cuda_submodule():
    c = skiff.device.cuda
    assert c.device_count() == paddle.device.cuda.device_count() == 0
    assert c.empty_cache() is None
    for name in ["memory_allocated", "max_memory_allocated", "memory_reserved",
                 "max_memory_reserved", "reset_max_memory_allocated",
                 "reset_max_memory_reserved", "get_device_name", "get_device_properties"]:
        with pytest.raises(ValueError, match=name):
            getattr(c, name)()
        with pytest.raises(ValueError):
            getattr(paddle.device.cuda, name)()
    with pytest.raises(skiff.Error, match="synchronize"):
        c.synchronize()


def test_get_device_of_a_tensor_and_cudnn_version():
    assert skiff.device.get_device(skiff.to_tensor([1, 2, 3])) == \
        paddle.device.get_device(paddle.to_tensor([1, 2, 3])) == -1
    assert skiff.get_device(skiff.to_tensor([1.0], place=skiff.CPUPlace())) == -1
    assert skiff.device.get_device() == "cpu"
    assert skiff.device.get_cudnn_version() is paddle.device.get_cudnn_version() is None


def test_device_rng_state_round_trip():
    state = skiff.device.get_rng_state()
    assert not isinstance(state, list)  # one state, where skiff.get_rng_state gives a list
    first = skiff.randn([2, 3]).numpy()
    skiff.device.set_rng_state(state)
    np.testing.assert_array_equal(skiff.randn([2, 3]).numpy(), first)
    skiff.device.set_rng_state(skiff.device.get_rng_state("cpu"), skiff.CPUPlace())
    with pytest.raises(TypeError, match="set_rng_state: new_state must be the GeneratorState"):
        skiff.device.set_rng_state(skiff.get_rng_state())
    with pytest.raises(ValueError, match="get_rng_state: device must be None, 'cpu'"):
        skiff.device.get_rng_state("gpu:0")
