"""skiff.device.cpu_info / set_max_cpu_isa: the CPU skiff detects and the kernels it picks
(docs/cpu.md)."""
import os

import numpy as np
import pytest

import skiff

ISAS = ["generic", "avx2", "avx512", "avx512_bf16"]


def _linux_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def test_cpu_info_describes_this_cpu():
    info = skiff.device.cpu_info()
    assert set(info) == {"features", "best_isa", "kernel_isa", "baseline", "baseline_features"}
    assert info["best_isa"] in ISAS and info["kernel_isa"] in ISAS
    assert ISAS.index(info["kernel_isa"]) <= ISAS.index(info["best_isa"])
    # The library loaded, so this CPU has what it was compiled for.
    assert set(info["baseline_features"]) <= set(info["features"])
    flags = _linux_flags()
    if flags is not None:
        for name in ("avx2", "fma", "avx512f", "avx512bw", "avx512_bf16"):
            assert (name in info["features"]) == (name in flags), name
    assert skiff.device.is_bf16_supported(including_emulation=False) == \
        ("avx512_bf16" in info["features"])


def test_the_environment_cap_applies():
    cap = os.environ.get("SKIFF_MAX_CPU_ISA")
    info = skiff.device.cpu_info()
    if cap is None:
        assert info["kernel_isa"] == info["best_isa"]
    else:
        assert info["kernel_isa"] == ISAS[min(ISAS.index(cap), ISAS.index(info["best_isa"]))]


@pytest.mark.parametrize("isa", ISAS)
def test_every_kernel_set_gives_the_same_products(isa):
    # Small products take skiff's own GEMM loops (one per instruction set).
    rng = np.random.default_rng(3)
    a = rng.standard_normal((5, 37)).astype("float32")
    b = rng.standard_normal((37, 23)).astype("float32")
    before = skiff.device.cpu_info()["kernel_isa"]
    try:
        skiff.device.set_max_cpu_isa(isa)
        got = skiff.matmul(skiff.to_tensor(a), skiff.to_tensor(b)).numpy()
        x = skiff.to_tensor(rng.standard_normal((2, 3, 8, 14)).astype("float32"))
        pooled = skiff.nn.functional.max_pool2d(x, 2, 2).numpy()
    finally:
        skiff.device.set_max_cpu_isa(before)
    np.testing.assert_allclose(got, a.astype("float64") @ b, rtol=1e-5, atol=1e-5)
    want = x.numpy().reshape(2, 3, 4, 2, 7, 2).max(axis=(3, 5))
    np.testing.assert_array_equal(pooled, want)


def test_unknown_sets_are_refused_by_name():
    with pytest.raises(skiff.Error, match="unknown instruction set 'sse9'.*avx512_bf16"):
        skiff.device.set_max_cpu_isa("sse9")
