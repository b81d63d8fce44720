"""Top-level names of Paddle 3.x: skiff.Size, set_printoptions, skiff.tensor(...) as a
constructor, LazyGuard, the paddle.base / paddle.framework aliases and Paddle's common
flags in set_flags / get_flags; behaviour vs paddle."""
import numpy as np
import pytest

import skiff

paddle = pytest.importorskip("paddle")


def test_size_behaves_as_paddles():
    for op in (lambda S: S([2, 3]), lambda S: S([2, 3]) + [4], lambda S: [4] + S([2, 3]),
               lambda S: S([2, 3]) * 2, lambda S: S([2, 3, 4])[1:], lambda S: S()):
        got, want = op(skiff.Size), op(paddle.Size)
        assert type(got) is skiff.Size and isinstance(want, paddle.Size)
        assert got == list(want) and isinstance(got, list)
    assert skiff.Size([2, 3]).numel() == paddle.Size([2, 3]).numel() == 6
    assert skiff.Size([2, 3])[0] == 2
    assert skiff.Size(paddle.ones([2, 5]).shape) == skiff.ones([2, 5]).shape
    with pytest.raises(TypeError):
        skiff.Size([2.5])
    with pytest.raises(TypeError):
        hash(skiff.Size([1]))


@pytest.fixture
def print_defaults():
    yield
    for lib in (skiff, paddle):
        lib.set_printoptions(precision=8, threshold=1000, edgeitems=3, sci_mode=False,
                             linewidth=80)


def _values(lib, data, **options):
    lib.set_printoptions(**options)
    return repr(lib.to_tensor(data)).split("\n", 1)[1]


def test_set_printoptions(print_defaults):
    for lib in (skiff, paddle):
        assert "1.235" in _values(lib, [1.23456, 2.0], precision=3)
        assert "1.23456" not in _values(lib, [1.23456, 2.0], precision=3)
        assert "1.235e+00" in _values(lib, [1.23456, 2.0], sci_mode=True)
        shown = _values(lib, np.arange(10.0), threshold=5, edgeitems=2, sci_mode=False)
        assert "..." in shown and "8." in shown and "2." not in shown
        long = _values(lib, np.arange(30.0), threshold=1000, linewidth=40)
        assert max(len(line) for line in long.splitlines()) <= 45
    with pytest.raises(TypeError):
        skiff.set_printoptions(precision=-1)


def test_tensor_is_a_module_and_a_constructor():
    for lib in (skiff, paddle):
        t = lib.tensor([1.0, 2.0], dtype="float64", requires_grad=True)
        assert not t.stop_gradient and t.dtype == lib.float64
        np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
        assert lib.tensor(3).dtype == lib.int64 and lib.tensor(3).stop_gradient
        assert callable(lib.tensor.ones)
    assert skiff.tensor.creation.__name__ == "skiff.tensor.creation"  # still the package


def test_lazy_guard_defers_initialization_until_initialize():
    with skiff.LazyGuard():
        layer = skiff.nn.Linear(3, 2, bias_attr=skiff.ParamAttr(
            initializer=skiff.nn.initializer.Constant(0.5)))
    assert layer.weight.shape == [3, 2]
    assert not layer.weight.numpy().any() and not layer.bias.numpy().any()  # no values yet
    for p in layer.parameters():
        p.initialize()
    assert layer.weight.numpy().std() > 0
    np.testing.assert_array_equal(layer.bias.numpy(), [0.5, 0.5])
    before = layer.weight.numpy().copy()
    layer.weight.initialize()  # once only
    np.testing.assert_array_equal(layer.weight.numpy(), before)
    outside = skiff.nn.Linear(3, 2)
    assert outside.weight.numpy().std() > 0  # initialized at once outside the guard
    outside.weight.initialize()


def test_base_and_framework_aliases():
    for name in ("ParamAttr", "in_dynamic_mode", "get_default_dtype"):
        assert hasattr(paddle.framework, name) and hasattr(skiff.framework, name)
    assert skiff.framework.ParamAttr is skiff.base.ParamAttr is skiff.ParamAttr
    for name in ("ParamAttr", "CPUPlace", "Program", "program_guard", "set_flags"):
        assert hasattr(paddle.base, name) and hasattr(skiff.base, name)


def test_flags_take_paddles_common_names():
    paddle_known = {"FLAGS_check_nan_inf": True, "FLAGS_use_mkldnn": True,
                    "FLAGS_eager_delete_tensor_gb": 1.0, "FLAGS_benchmark": True,
                    "FLAGS_allocator_strategy": "naive_best_fit"}
    before = skiff.get_flags(list(paddle_known))
    want_before = paddle.get_flags(list(paddle_known))
    assert {k: v for k, v in before.items() if k != "FLAGS_check_nan_inf"} == \
        {k: v for k, v in want_before.items() if k != "FLAGS_check_nan_inf"}
    try:
        skiff.set_flags(paddle_known)
        assert skiff.get_flags(list(paddle_known)) == paddle_known
        skiff.set_flags({"FLAGS_cudnn_deterministic": True, "embedding_deterministic": 1})
        assert skiff.get_flags("FLAGS_cudnn_deterministic") == {"FLAGS_cudnn_deterministic": True}
    finally:
        skiff.set_flags(before)
        skiff.set_flags({"FLAGS_cudnn_deterministic": False, "embedding_deterministic": 0})
    with pytest.raises(ValueError):
        skiff.get_flags("FLAGS_no_such_flag")
    with pytest.raises(TypeError):
        skiff.set_flags({"FLAGS_allocator_strategy": 3})
