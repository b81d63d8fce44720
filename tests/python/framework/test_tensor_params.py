"""skiff.framework.tensor_params: the wrappers that check the Tensor parameters of public
functions (signature kept, each kind admitted or refused with the function and parameter
named), and that every public function with Tensor parameters has one."""
import inspect
import types

import numpy as np
import pytest

import skiff
import skiff.nn.functional as F
from skiff.framework import tensor_params as tp
from skiff.framework.arguments import ArgumentTypeError


def _wrapped(fn):
    return tp.checked(fn)


def test_the_wrapper_keeps_signature_defaults_and_keywords():
    def f(x, y=None, *rest, scale=2, **options):
        return x, y, rest, scale, options

    g = _wrapped(f)
    assert g is not f and g.__wrapped__ is f and g.__name__ == "f"
    assert inspect.signature(g) == inspect.signature(f)
    t = skiff.ones([1])
    assert g(t) == (t, None, (), 2, {})
    assert g(t, t, 1, 2, scale=3, k=4) == (t, t, (1, 2), 3, {"k": 4})
    assert _wrapped(f) is g and _wrapped(g) is g


def test_positional_only_and_keyword_only_parameters():
    def f(x, /, other, *, label=None):
        return x, other, label

    g = _wrapped(f)
    t = skiff.ones([1])
    assert g(t, t, label=t) == (t, t, t)
    with pytest.raises(ArgumentTypeError, match="^f: label must be a Tensor or None, got int$"):
        g(t, t, label=3)


def test_kinds_admit_and_refuse():
    @tp.accepts(x=tp.OPERAND, y=tp.TENSORS, index=tp.INDEX, weight=tp.ANY)
    def f(x, y, index, weight, bias=None, scale=1.0):
        return x

    g = _wrapped(f)
    t = skiff.ones([2])
    for x in (t, 1, 2.5, np.float32(1), np.ones(2), [1.0, 2.0]):
        g(x, [t], [0], "anything")
    g(t, (t, t), np.array([0]), None, bias=t, scale="not checked: a number default")
    cases = [((None, [t], 0, 0), "f: x must be a Tensor, a number or an array, got NoneType"),
             ((t, t, 0, 0), "f: y must be a list or tuple of Tensors, got a float32 Tensor"),
             ((t, [t, 1], 0, 0), "f: y must be a list or tuple of Tensors, got list"),
             ((t, [t], 1.5, 0), "f: index must be a Tensor or a list of ints, got float"),
             ((t, [t], True, 0), "f: index must be a Tensor or a list of ints, got bool")]
    for args, message in cases:
        with pytest.raises(ArgumentTypeError, match=f"^{message}$"):
            g(*args)
    with pytest.raises(ArgumentTypeError, match="^f: bias must be a Tensor or None, got str$"):
        g(t, [t], 0, 0, bias="b")


def test_floating_kind_names_the_dtype():
    @tp.accepts(x=tp.FLOATING)
    def f(x):
        return x

    g = _wrapped(f)
    g(skiff.ones([2], dtype="float64"))
    with pytest.raises(ArgumentTypeError, match="^f: x must be a floating-point Tensor, got "
                                                "int64$"):
        g(skiff.ones([2], dtype="int64"))
    with pytest.raises(ArgumentTypeError, match="^f: x must be a floating-point Tensor, got "
                                                "int$"):
        g(3)


def test_parameters_and_other_tensor_subclasses_pass():
    layer = skiff.nn.Linear(2, 3)
    out = F.linear(skiff.ones([4, 2]), layer.weight, layer.bias)
    assert out.shape == [4, 3]


def test_static_variables_pass_in_static_mode():
    import skiff.static as st
    skiff.enable_static()
    try:
        main = st.Program()
        with st.program_guard(main, st.Program()):
            x = st.data("x", [2, 3], "float32")
            y = skiff.add(skiff.sum(x, axis=1), 1.0)
            z = skiff.concat([x, x], axis=0)
        assert list(y.shape) == [2] and list(z.shape) == [4, 3]
    finally:
        skiff.disable_static()


def test_methods_are_the_checked_functions():
    assert skiff.Tensor.matmul is skiff.matmul
    assert skiff.Tensor.flip is skiff.flip
    with pytest.raises(ArgumentTypeError, match="^matmul: y must be a Tensor, got str$"):
        skiff.ones([2, 2]).matmul("w")


def _public_functions():
    for module in (skiff, F, skiff.linalg, skiff.metric):
        for name in dir(module):
            fn = getattr(module, name)
            if not name.startswith("_") and isinstance(fn, types.FunctionType):
                yield f"{module.__name__}.{name}", fn


def test_every_public_function_with_tensor_parameters_is_checked():
    unchecked = []
    for qual, fn in _public_functions():
        raw = getattr(fn, "__wrapped__", fn)
        params = inspect.signature(raw).parameters.values()
        if tp._kinds(raw, list(params)) and not getattr(fn, "_checks_tensor_params", False):
            unchecked.append(qual)
    assert not unchecked


def test_every_layer_forward_with_tensor_inputs_is_checked_and_named():
    unchecked = []
    for name in dir(skiff.nn):
        cls = getattr(skiff.nn, name)
        if not (isinstance(cls, type) and issubclass(cls, skiff.nn.Layer)):
            continue
        raw = getattr(cls.forward, "__wrapped__", cls.forward)
        if tp._kinds(raw, list(inspect.signature(raw).parameters.values())) \
                and not getattr(cls.forward, "_checks_tensor_params", False):
            unchecked.append(name)
    assert not unchecked
    with pytest.raises(ArgumentTypeError, match="^Conv2D: x must be a Tensor, got str$"):
        skiff.nn.Conv2D(1, 1, 2)("image")


def test_checked_functions_pickle_by_reference():
    import pickle
    for fn in (skiff.concat, skiff.flip, F.glu, skiff.linalg.inv, skiff.Tensor.flip, F.relu,
               F.softmax, skiff.equal, skiff.exp):
        assert pickle.loads(pickle.dumps(fn)) is fn
