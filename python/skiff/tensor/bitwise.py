"""Bitwise operators, shifts, gcd and lcm (Paddle's paddle.tensor.math / logic integer
functions): int32/int64 tensors (and/or/xor/not also bool), numpy broadcasting, Python
integers allowed on either side; no gradients. The bitwise operators and shifts also take
int8, uint8 and int16: they run on the operands widened to int32 and wrap back to the
narrow dtype, so the result is the narrow width's own (a logical right shift fills the
narrow width's top bits with zeros)."""
from .. import _C_ops
from ..framework import arguments
from ..framework.core import apply
from ..framework.tensor_params import OPERAND, accepts
from .scalars import as_operands, dtype_name_of, is_tensor

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_invert",
           "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm", "bitwise_and_",
           "bitwise_or_", "bitwise_xor_", "bitwise_not_", "bitwise_invert_",
           "bitwise_left_shift_", "bitwise_right_shift_", "gcd_", "lcm_"]


def _out(out):
    return None if out is None else [out]


_check_tensor = arguments.tensor


def _check_operands(fn, x, y):
    """One of x and y is a tensor, the other a tensor or a Python int or bool."""
    if not (is_tensor(x) or is_tensor(y)):
        raise arguments.ArgumentTypeError(f"{fn}: x must be a Tensor, got {type(x).__name__}")
    for name, v in (("x", x), ("y", y)):
        if not is_tensor(v) and not isinstance(v, int):
            raise arguments.ArgumentTypeError(f"{fn}: {name} must be a Tensor or an int, got "
                                              f"{type(v).__name__}")


_NARROW_BITS = {"int8": 8, "uint8": 8, "int16": 16}  # the dtypes run widened to int32


def _narrow(x, y=None):
    """The narrow dtype (int8, uint8, int16) of the operands, or None when they are not
    both of one such dtype."""
    name = dtype_name_of(x)
    if name not in _NARROW_BITS or (y is not None and dtype_name_of(y) != name):
        return None
    return name


def _wide(x):
    return _C_ops.cast(x, out_dtype="int32")


def _wrapped(result, name, out):
    """The int32 ``result`` wrapped to the narrow dtype ``name`` (written into out if given)."""
    narrow = _C_ops.cast(result, out_dtype=name)
    return narrow if out is None else _C_ops.assign(narrow, out=[out])


def _binary(op, doc):
    def f(x, y, out=None, name=None):
        _check_operands(op, x, y)
        x, y = as_operands(x, y, op)
        narrow = _narrow(x, y)
        if narrow:
            return _wrapped(apply(op, _wide(x), _wide(y)), narrow, out)
        return apply(op, x, y, out=_out(out))

    f.__name__ = f.__qualname__ = op
    f.__doc__ = doc
    return accepts(x=OPERAND, y=OPERAND)(f)


bitwise_and = _binary("bitwise_and", "Elementwise x & y (int32/int64/bool, broadcast).")
bitwise_or = _binary("bitwise_or", "Elementwise x | y (int32/int64/bool, broadcast).")
bitwise_xor = _binary("bitwise_xor", "Elementwise x ^ y (int32/int64/bool, broadcast).")


def bitwise_not(x, out=None, name=None):
    """Elementwise ~x (int8/uint8/int16/int32/int64), logical not for bool."""
    _check_tensor("bitwise_not", "x", x)
    narrow = _narrow(x)
    if narrow:
        return _wrapped(_C_ops.bitwise_not(_wide(x)), narrow, out)
    return _C_ops.bitwise_not(x, out=_out(out))


bitwise_invert = bitwise_not


@accepts(x=OPERAND, y=OPERAND)
def bitwise_left_shift(x, y, is_arithmetic=True, out=None, name=None):
    """Elementwise x << y (int8/uint8/int16/int32/int64); 0 where y is negative or not
    below the bit width."""
    _check_operands("bitwise_left_shift", x, y)
    x, y = as_operands(x, y)
    narrow = _narrow(x, y)
    if narrow:  # the low bits of the wide shift are the narrow one's
        return _wrapped(_C_ops.bitwise_left_shift(_wide(x), _wide(y), is_arithmetic=True),
                        narrow, out)
    return _C_ops.bitwise_left_shift(x, y, is_arithmetic=bool(is_arithmetic), out=_out(out))


@accepts(x=OPERAND, y=OPERAND)
def bitwise_right_shift(x, y, is_arithmetic=True, out=None, name=None):
    """Elementwise x >> y (int8/uint8/int16/int32/int64): sign-extending when
    ``is_arithmetic``, else x's bits (of its own width) read as unsigned, zeros shifted in;
    uint8 always shifts in zeros."""
    _check_operands("bitwise_right_shift", x, y)
    x, y = as_operands(x, y)
    narrow = _narrow(x, y)
    if not narrow:
        return _C_ops.bitwise_right_shift(x, y, is_arithmetic=bool(is_arithmetic),
                                          out=_out(out))
    wide = _wide(x)  # sign-extended (zero-extended for uint8)
    if not is_arithmetic and narrow != "uint8":  # x's own bits, read as unsigned
        mask = _C_ops.fill_any_like(wide, value=float(2 ** _NARROW_BITS[narrow] - 1))
        wide = _C_ops.bitwise_and(wide, mask)
    return _wrapped(_C_ops.bitwise_right_shift(wide, _wide(y), is_arithmetic=True), narrow, out)


@accepts(x=OPERAND, y=OPERAND)
def gcd(x, y, name=None):
    """Elementwise greatest common divisor of |x| and |y| (int32/int64; gcd(0, 0) = 0)."""
    _check_operands("gcd", x, y)
    return _C_ops.gcd(*as_operands(x, y, "gcd"))


@accepts(x=OPERAND, y=OPERAND)
def lcm(x, y, name=None):
    """Elementwise least common multiple |x * y| / gcd(x, y) (int32/int64; 0 where x or y
    is 0)."""
    _check_operands("lcm", x, y)
    return _C_ops.lcm(*as_operands(x, y, "lcm"))


def _in_place(fn):
    def f(x, y, *args, name=None, **kwargs):
        _check_tensor(fn.__name__ + "_", "x", x)
        result = arguments.forward_call(fn.__name__ + "_", fn, x, y, *args, **kwargs)
        if list(result.shape) != list(x.shape):
            raise ValueError(f"{fn.__name__}_: the broadcast shape {list(result.shape)} "
                             f"differs from x's shape {list(x.shape)}")
        return _C_ops.assign(result, out=[x])

    f.__name__ = f.__qualname__ = fn.__name__ + "_"
    f.__doc__ = f"{fn.__name__}, written into x."
    return accepts(y=OPERAND)(f)


bitwise_and_ = _in_place(bitwise_and)
bitwise_or_ = _in_place(bitwise_or)
bitwise_xor_ = _in_place(bitwise_xor)
bitwise_left_shift_ = _in_place(bitwise_left_shift)
bitwise_right_shift_ = _in_place(bitwise_right_shift)
gcd_ = _in_place(gcd)
lcm_ = _in_place(lcm)


def bitwise_not_(x, name=None):
    """bitwise_not, written into x."""
    _check_tensor("bitwise_not_", "x", x)
    return _C_ops.bitwise_not(x, out=[x])


bitwise_invert_ = bitwise_not_
