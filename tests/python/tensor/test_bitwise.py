"""Bitwise operators, shifts, gcd and lcm: values against paddle 3.3's definitions (torch
and numpy as references), bool support where Paddle has it, Python ints on either side,
the in-place forms, the Tensor operators, a static program, and errors."""
import numpy as np
import paddle
import pytest
import torch

import skiff

INTS = ["int32", "int64"]


def ints(shape, dtype, seed, lo=-50, hi=50):
    return np.random.default_rng(seed).integers(lo, hi, size=shape).astype(dtype)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("name,ref", [("bitwise_and", np.bitwise_and),
                                      ("bitwise_or", np.bitwise_or),
                                      ("bitwise_xor", np.bitwise_xor)])
def test_binary_bitwise_broadcasts(dtype, name, ref):
    a, b = ints([3, 1, 4], dtype, 1), ints([5, 1], dtype, 2)
    out = getattr(skiff, name)(skiff.to_tensor(a), skiff.to_tensor(b))
    assert out.dtype.name == dtype and list(out.shape) == [3, 5, 4]
    np.testing.assert_array_equal(out.numpy(), ref(a, b))


@pytest.mark.parametrize("name,ref", [("bitwise_and", np.logical_and),
                                      ("bitwise_or", np.logical_or),
                                      ("bitwise_xor", np.logical_xor)])
def test_bool_bitwise(name, ref):
    p, q = np.array([True, True, False, False]), np.array([True, False, True, False])
    out = getattr(skiff, name)(skiff.to_tensor(p), skiff.to_tensor(q))
    assert out.dtype.name == "bool"
    np.testing.assert_array_equal(out.numpy(), ref(p, q))
    np.testing.assert_array_equal(skiff.bitwise_not(skiff.to_tensor(p)).numpy(), ~p)


@pytest.mark.parametrize("dtype", INTS)
def test_bitwise_not_and_invert(dtype):
    a = ints([2, 3], dtype, 3)
    np.testing.assert_array_equal(skiff.bitwise_not(skiff.to_tensor(a)).numpy(), ~a)
    np.testing.assert_array_equal(skiff.bitwise_invert(skiff.to_tensor(a)).numpy(), ~a)
    np.testing.assert_array_equal((~skiff.to_tensor(a)).numpy(), ~a)


def test_shifts_follow_paddle_past_the_width():
    # paddle 3.3: shifts by a negative amount or by >= the width give 0 (left, logical right)
    # or the sign (arithmetic right); logical right shifts read the bits as unsigned
    x = skiff.to_tensor(np.array([-8, 5, 127, -1], "int32"))
    y = skiff.to_tensor(np.array([1, 2, 40, -1], "int32"))
    np.testing.assert_array_equal(skiff.bitwise_left_shift(x, y).numpy(), [-16, 20, 0, 0])
    np.testing.assert_array_equal(skiff.bitwise_left_shift(x, y, False).numpy(),
                                  [-16, 20, 0, 0])
    np.testing.assert_array_equal(skiff.bitwise_right_shift(x, y).numpy(), [-4, 1, 0, -1])
    np.testing.assert_array_equal(skiff.bitwise_right_shift(x, y, is_arithmetic=False).numpy(),
                                  [2147483644, 1, 0, 0])


@pytest.mark.parametrize("dtype", INTS)
def test_shifts_match_torch_in_range(dtype):
    a, s = ints([4, 6], dtype, 4, -1000, 1000), ints([6], dtype, 5, 0, 20)
    x, y = skiff.to_tensor(a), skiff.to_tensor(s)
    ta, ts = torch.tensor(a), torch.tensor(s)
    np.testing.assert_array_equal(skiff.bitwise_left_shift(x, y).numpy(), (ta << ts).numpy())
    np.testing.assert_array_equal(skiff.bitwise_right_shift(x, y).numpy(), (ta >> ts).numpy())
    np.testing.assert_array_equal((x << y).numpy(), (ta << ts).numpy())
    np.testing.assert_array_equal((x >> y).numpy(), (ta >> ts).numpy())
    unsigned = a.view("uint32" if dtype == "int32" else "uint64")
    want = (unsigned >> s.astype(unsigned.dtype)).view(dtype)
    np.testing.assert_array_equal(skiff.bitwise_right_shift(x, y, False).numpy(), want)


@pytest.mark.parametrize("dtype", INTS)
def test_gcd_lcm(dtype):
    a, b = ints([4, 5], dtype, 6, -30, 30), ints([5], dtype, 7, -30, 30)
    a[0, 0], b[0] = 0, 0
    x, y = skiff.to_tensor(a), skiff.to_tensor(b)
    np.testing.assert_array_equal(skiff.gcd(x, y).numpy(), np.gcd(a, b))
    np.testing.assert_array_equal(skiff.lcm(x, y).numpy(), np.lcm(a, b))
    np.testing.assert_array_equal(x.gcd(y).numpy(), torch.gcd(torch.tensor(a),
                                                              torch.tensor(b)).numpy())
    np.testing.assert_array_equal(skiff.gcd(x, 12).numpy(), np.gcd(a, 12))


def test_python_ints_and_reflected_operators():
    a = np.array([12, -1, 7], "int64")
    x = skiff.to_tensor(a)
    np.testing.assert_array_equal((x & 10).numpy(), a & 10)
    np.testing.assert_array_equal((10 & x).numpy(), 10 & a)
    np.testing.assert_array_equal((3 | x).numpy(), 3 | a)
    np.testing.assert_array_equal((5 ^ x).numpy(), 5 ^ a)
    np.testing.assert_array_equal((1 << skiff.to_tensor(np.array([0, 3, 10]))).numpy(),
                                  [1, 8, 1024])
    np.testing.assert_array_equal((1000 >> skiff.to_tensor(np.array([0, 3]))).numpy(),
                                  [1000, 125])
    b = skiff.to_tensor(np.array([True, False]))
    np.testing.assert_array_equal((b | True).numpy(), [True, True])


def test_in_place_forms():
    a, b = np.array([[12, -1, 7]], "int32"), np.array([10, 5, 3], "int32")
    cases = [("bitwise_and_", a & b), ("bitwise_or_", a | b), ("bitwise_xor_", a ^ b),
             ("gcd_", np.gcd(a, b)), ("lcm_", np.lcm(a, b)),
             ("bitwise_left_shift_", a << b), ("bitwise_right_shift_", a >> b)]
    for name, want in cases:
        x = skiff.to_tensor(a.copy())
        out = getattr(skiff, name)(x, skiff.to_tensor(b))
        np.testing.assert_array_equal(x.numpy(), want, err_msg=name)
        np.testing.assert_array_equal(out.numpy(), want, err_msg=name)
        x = skiff.to_tensor(a.copy())
        getattr(x, name)(skiff.to_tensor(b))
        np.testing.assert_array_equal(x.numpy(), want, err_msg="Tensor." + name)
    for name in ("bitwise_not_", "bitwise_invert_"):
        x = skiff.to_tensor(a.copy())
        getattr(skiff, name)(x)
        np.testing.assert_array_equal(x.numpy(), ~a)
    x = skiff.to_tensor(np.array([1, 2], "int64"))
    with pytest.raises(ValueError, match="bitwise_and_"):
        skiff.bitwise_and_(x, skiff.to_tensor(np.ones([3, 2], "int64")))


def test_out_argument():
    a, b = np.array([6, 5], "int64"), np.array([3, 3], "int64")
    out = skiff.to_tensor(np.zeros(2, "int64"))
    skiff.bitwise_xor(skiff.to_tensor(a), skiff.to_tensor(b), out=out)
    np.testing.assert_array_equal(out.numpy(), a ^ b)


def test_static_program():
    import skiff.static as st
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            x = st.data("x", [3], "int64")
            y = st.data("y", [3], "int64")
            outs = [x & y, x | y, ~x, x << y, skiff.bitwise_right_shift(x, y, False),
                    skiff.gcd(x, y), skiff.lcm(x, y)]
            exe = st.Executor(skiff.CPUPlace())
            exe.run(startup)
            a, b = np.array([12, -8, 9], "int64"), np.array([10, 2, 6], "int64")
            got = exe.run(main, feed={"x": a, "y": b}, fetch_list=outs)
    finally:
        skiff.disable_static()
    want = [a & b, a | b, ~a, a << b, (a.view("uint64") >> b.view("uint64")).view("int64"),
            np.gcd(a, b), np.lcm(a, b)]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_errors():
    f = skiff.to_tensor(np.ones(2, "float32"))
    i32, i64 = (skiff.to_tensor(np.ones(2, d)) for d in INTS)
    b = skiff.to_tensor(np.array([True, False]))
    with pytest.raises(skiff.Error, match="bitwise_and.*float32"):
        skiff.bitwise_and(f, f)
    with pytest.raises(skiff.Error, match="gcd.*bool"):
        skiff.gcd(b, b)
    with pytest.raises(skiff.Error, match="bitwise_left_shift.*bool"):
        skiff.bitwise_left_shift(b, b)
    with pytest.raises(skiff.Error, match="bitwise_not.*float32"):
        ~f
    with pytest.raises(skiff.Error, match="int64.*int32|int32.*int64"):
        skiff.bitwise_or(i64, i32)
    with pytest.raises(TypeError, match="bitwise_xor.*y"):
        skiff.bitwise_xor(i64, "a")
    with pytest.raises(TypeError, match="lcm.*x"):
        skiff.lcm([1, 2], 3)


NARROW_X = np.array([-128, -80, -65, -17, -1, 0, 1, 5, 64, 127])
NARROW_Y = np.array([0, 1, 2, 3, 4, 7, 8, 9, -1, 20])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("fn,kw", [("bitwise_right_shift", dict(is_arithmetic=True)),
                                   ("bitwise_right_shift", dict(is_arithmetic=False)),
                                   ("bitwise_left_shift", dict(is_arithmetic=True)),
                                   ("bitwise_left_shift", dict(is_arithmetic=False)),
                                   ("bitwise_and", {}), ("bitwise_or", {}), ("bitwise_xor", {})])
def test_narrow_ints_as_paddle(dtype, fn, kw):
    x, y = NARROW_X.astype(dtype), NARROW_Y.astype(dtype)  # (uint8: wrapped)
    ours = getattr(skiff, fn)(skiff.to_tensor(x), skiff.to_tensor(y), **kw)
    theirs = getattr(paddle, fn)(paddle.to_tensor(x), paddle.to_tensor(y), **kw)
    assert ours.dtype.name == dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
def test_narrow_not_and_docstring_example(dtype):
    x = NARROW_X.astype(dtype)
    np.testing.assert_array_equal(skiff.bitwise_not(skiff.to_tensor(x)).numpy(), ~x)
    x = skiff.to_tensor([[-10, -20, -40, -80], [-16, -17, -32, -65]], dtype="int8")
    y = skiff.to_tensor([[1, 2, 3, 4], [2, 3, 2, 1]], dtype="int8")
    np.testing.assert_array_equal(skiff.bitwise_right_shift(x, y, is_arithmetic=False).numpy(),
                                  [[123, 59, 27, 11], [60, 29, 56, 95]])
    out = skiff.zeros([2, 4], "int8")
    skiff.bitwise_right_shift(x, y, out=out)
    np.testing.assert_array_equal(out.numpy(), x.numpy() >> y.numpy())
