"""The allocator's counts of tensor memory: bytes held now and the peak since a reset."""
import numpy as np
import pytest

import skiff
from skiff import device


def test_bytes_held_follow_tensors_and_the_peak_keeps_the_most():
    before = device.memory_allocated()
    device.reset_max_memory_allocated()
    x = skiff.to_tensor(np.ones([500, 1000], np.float32))  # copied: 2 MB
    y = x * 2
    assert device.memory_allocated() - before == 4_000_000
    del x, y
    assert device.memory_allocated() == before
    assert device.max_memory_allocated() - before == 4_000_000
    device.reset_max_memory_allocated()
    assert device.max_memory_allocated() == device.memory_allocated()


def test_a_peak_inside_a_computation_is_seen():
    a = skiff.to_tensor(np.ones([256, 256], np.float32))
    device.reset_max_memory_allocated()
    start = device.memory_allocated()
    (a * 2 + 1).sum()  # temporaries of 256 KB each, freed before it returns
    assert device.memory_allocated() == start
    assert device.max_memory_allocated() - start >= 2 * 256 * 256 * 4


def test_other_devices_are_refused():
    with pytest.raises(ValueError, match="live on the CPU; got device 'gpu:0'"):
        device.memory_allocated("gpu:0")


def test_a_backward_frees_the_activations_while_the_loss_lives():
    w = skiff.to_tensor(np.ones([256, 256], np.float32))
    w.stop_gradient = False
    x = skiff.to_tensor(np.ones([256, 256], np.float32))
    start = device.memory_allocated()
    h = x
    for _ in range(4):
        h = skiff.tanh(skiff.matmul(h, w))
    loss = h.sum()
    del h
    held = device.memory_allocated() - start
    assert held >= 8 * 256 * 256 * 4  # the activations the backward needs
    loss.backward()
    # The gradient of w and the loss remain; no activation does.
    assert device.memory_allocated() - start <= 256 * 256 * 4 + 64, \
        device.memory_allocated() - start
