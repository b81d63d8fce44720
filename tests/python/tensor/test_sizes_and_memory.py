"""Sizes, memory and the edges of integer arithmetic from Python: a shape past what a tensor
can hold is a skiff.Error naming it (never a wrapped size or a crash), memory the machine
cannot give is a MemoryError naming the op and the bytes, the smallest integer over -1 is
numpy's answer (no trap), a long autograd chain is freed and differentiated at any depth,
and to_tensor / numpy() copy as Paddle's do while from_numpy / as_tensor / numpy(copy=False)
/ DLPack share memory."""
import numpy as np
import pytest

import skiff

BIG = 2 ** 31


@pytest.mark.parametrize("make", [
    lambda: skiff.zeros([BIG, BIG]),
    lambda: skiff.full([BIG, BIG], 1.0),
    lambda: skiff.rand([BIG, BIG]),
    lambda: skiff.ones([2 ** 63 - 1]),
    lambda: skiff.arange(0, 2 ** 62),
    lambda: skiff.nn.Linear(BIG, BIG),
    lambda: skiff.ones([2, 3]).tile([BIG, BIG]),
])
def test_shapes_past_what_a_tensor_holds_are_errors(make):
    with pytest.raises((skiff.Error, MemoryError, ValueError, OverflowError)) as e:
        make()
    assert "2147483648" in str(e.value) or "2^63" in str(e.value) or "bytes" in str(e.value), \
        str(e.value)


def test_tile_never_makes_a_wrapped_shape():
    with pytest.raises(skiff.Error, match=r"tile.*more than"):
        skiff.ones([2, 3]).tile([BIG, BIG])


def test_memory_the_machine_cannot_give_is_a_memory_error_naming_op_and_bytes():
    with pytest.raises(MemoryError) as e:
        skiff.zeros([2 ** 48])  # 1 PiB of float32
    assert isinstance(e.value, skiff.Error) and isinstance(e.value, skiff.OutOfMemoryError)
    assert "fill_constant" in str(e.value) and "1.0 PiB" in str(e.value), str(e.value)


def test_an_attribute_past_its_range_names_it():
    from skiff.framework.core import apply
    x = skiff.ones([2, 3])
    with pytest.raises(skiff.Error, match=r"'cumsum'.*'axis' is 18446744073709551616, out of"):
        apply("cumsum", x, attrs={"axis": 2 ** 64})
    with pytest.raises(skiff.Error, match=r"elementwise_add.*'axis' is 2147483648, out of the"):
        apply("elementwise_add", x, skiff.ones([3]), attrs={"axis": 2 ** 31})  # read as int32


@pytest.mark.parametrize("dtype,smallest", [("int64", -2 ** 63), ("int32", -2 ** 31)])
def test_the_smallest_integer_over_minus_one_is_numpys_answer(dtype, smallest):
    x = skiff.to_tensor([smallest, smallest, 7], dtype=dtype)
    y = skiff.to_tensor([-1, 1, -1], dtype=dtype)
    a, b = np.array([smallest, smallest, 7], dtype), np.array([-1, 1, -1], dtype)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal((x // y).numpy(), a // b)
        np.testing.assert_array_equal((x % y).numpy(), a % b)
    with pytest.raises(skiff.Error, match="division by zero"):
        x // skiff.to_tensor([0], dtype=dtype)


@pytest.mark.parametrize("backward", [False, True])
def test_a_long_autograd_chain_is_freed_and_differentiated(backward):
    w = skiff.ones([1])
    w.stop_gradient = False
    y = w
    for _ in range(200_000):
        y = y + 1.0
    if backward:
        y.backward()
        assert float(w.grad) == 1.0
    del y  # freed without recursion


def test_to_tensor_copies_the_array_and_numpy_returns_a_copy():
    a = np.zeros(3, np.float32)
    t = skiff.to_tensor(a)
    a[0] = 5
    assert float(t[0]) == 0.0
    n = t.numpy()
    n[1] = 7
    assert float(t[1]) == 0.0
    buffer = np.zeros([2, 2], np.float32)  # a pipeline reusing its buffer
    batches = []
    for i in range(3):
        buffer[:] = i
        batches.append(skiff.to_tensor(buffer))
    assert [float(b.sum()) for b in batches] == [0.0, 4.0, 8.0]


def test_sharing_is_asked_for():
    a = np.zeros(3, np.float32)
    shared = [skiff.from_numpy(a), skiff.as_tensor(a), skiff.from_dlpack(a)]
    a[0] = 5
    assert [float(t[0]) for t in shared] == [5.0] * 3
    view = shared[0].numpy(copy=False)
    view[1] = 7
    assert float(shared[0][1]) == 7.0 and a[1] == 7.0
    assert np.shares_memory(np.asarray(shared[0], copy=False) if np.__version__ >= "2" else view,
                            a)
    assert not np.shares_memory(np.asarray(shared[0]), a)  # np.asarray copies, as numpy()
