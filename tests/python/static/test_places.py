"""paddle.static.device_guard and the place lists (cpu_places, cuda_places, xpu_places)
(skiff/static/places.py)."""
import numpy as np
import pytest

import skiff


def test_device_guard_and_places(static):
    st = static
    x = st.data("x", [2], "float32")
    with st.device_guard("cpu"):
        y = x * 2
    with st.device_guard(None):
        y = y + 1
    out, = st.Executor().run(feed={"x": np.ones(2, "float32")}, fetch_list=[y])
    np.testing.assert_array_equal(out, [3, 3])
    with pytest.raises(skiff.Error, match="CPU only"):
        with st.device_guard("gpu:0"):
            pass
    with pytest.raises(ValueError, match="device"):
        with st.device_guard("tpu"):
            pass
    with pytest.raises(AssertionError, match="CUDA"):
        st.cuda_places()
    with pytest.raises(AssertionError, match="XPU"):
        st.xpu_places([0])
