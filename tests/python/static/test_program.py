"""Building programs from Python: data, Variables, ops appended with their source
lines, build-time shape errors, printing, cloning, blocks and ops."""
import inspect

import numpy as np
import pytest

import skiff


def _line():
    """The caller's line number."""
    return inspect.currentframe().f_back.f_lineno


def test_data_declares_feedable_inputs(static):
    x = static.data("x", [None, 4], "float32")
    label = static.data("label", [-1, 1], dtype="int64")
    assert isinstance(x, static.Variable)
    assert x.name == "x" and x.shape == [-1, 4] and x.dtype == skiff.float32
    assert label.dtype == "int64" and label.stop_gradient and not label.persistable
    assert x.block.idx == 0 and x.block.program is static.default_main_program()
    assert static.data("x", [None, 4]) is x
    with pytest.raises(skiff.Error, match=r"already declares it as float32\[-1, 4\]"):
        static.data("x", [None, 5])


def test_operators_append_ops_with_inferred_shapes(static):
    x = static.data("x", [None, 4])
    w = static.create_parameter([4, 3], "float32")
    y = skiff.tanh(x @ w) * 2.0 + 1
    z = (y - y.mean(axis=1, keepdim=True)).sum(axis=0)
    assert y.shape == [-1, 3] and y.dtype == skiff.float32
    assert z.shape == [3]
    assert (x > 0).dtype == skiff.bool
    assert skiff.cast(x, "float64").dtype == skiff.float64
    types = [op.type for op in static.default_main_program().global_block().ops]
    assert types[:2] == ["matmul", "tanh"] and "reduce_sum" in types


def test_each_op_records_the_users_line(static):
    x = static.data("x", [2, 3])
    line = _line() + 1
    y = skiff.exp(x)
    op = static.default_main_program().global_block().ops[-1]
    assert op.type == "exp" and op.output("Out") == [y.name]
    assert op.source == f"{__file__}:{line}"
    assert f"# {__file__}:{line}" in static.default_main_program().to_string(
        with_details=True)


def test_shape_errors_name_the_op_and_the_users_line(static):
    a = static.data("a", [None, 4])
    b = static.data("b", [5, 3])
    line = _line() + 2
    with pytest.raises(skiff.Error) as e:
        skiff.matmul(a, b)
    msg = str(e.value)
    assert "matmul" in msg and f"{__file__}:{line}" in msg
    assert "float32[-1, 4]" in msg and "float32[5, 3]" in msg


def test_unknown_attr_and_slot_are_errors(static):
    x = static.data("x", [3])
    block = static.default_main_program().global_block()
    with pytest.raises(skiff.Error, match="has no attribute 'nope'"):
        block.append_op("scale", inputs={"X": x}, outputs={"Out": block.create_var()},
                        attrs={"nope": 1})
    with pytest.raises(skiff.Error, match="has no input slot 'Y'"):
        block.append_op("tanh", inputs={"Y": x}, outputs={"Out": block.create_var()})


def test_block_append_op_in_paddle_style(static):
    x = static.data("x", [2, 3])
    block = static.default_main_program().global_block()
    out = block.create_var(name="scaled", dtype="float32")
    op = block.append_op("scale", inputs={"X": [x]}, outputs={"Out": [out]},
                         attrs={"scale": 3, "bias": 1.0})
    assert op.type == "scale" and op.attr("scale") == 3.0 and op.input("X") == ["x"]
    assert out.shape == [2, 3]
    exe = static.Executor()
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    got, = exe.run(feed={"x": arr}, fetch_list=[out])
    np.testing.assert_allclose(got, arr * 3 + 1)


def test_variables_have_no_value_at_build_time(static):
    x = static.data("x", [2])
    with pytest.raises(skiff.Error, match="static.nn.cond"):
        bool(x > 0)
    with pytest.raises(skiff.Error, match="no value while the program is built"):
        x.numpy()
    with pytest.raises(skiff.Error, match="first dim is not known"):
        len(static.data("y", [None, 2]))
    assert len(x) == 2


def test_variables_of_another_program_are_rejected(static):
    other = static.Program()
    with static.program_guard(other):
        v = static.data("v", [2])
    x = static.data("x", [2])
    with pytest.raises(skiff.Error, match="of another program"):
        x + v


def test_eager_tensors_used_in_static_code_are_captured(static):
    w = skiff.to_tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    x = static.data("x", [None, 2])
    y = x @ w
    exe = static.Executor()
    got, = exe.run(feed={"x": np.ones((1, 2), np.float32)}, fetch_list=[y])
    np.testing.assert_allclose(got, [[4.0, 6.0]])
    w._copy_value_from(skiff.to_tensor(np.zeros((2, 2), np.float32)))
    got, = exe.run(feed={"x": np.ones((1, 2), np.float32)}, fetch_list=[y])
    np.testing.assert_allclose(got, [[0.0, 0.0]])


def test_clone_copies_and_for_test_switches_is_test(static):
    x = static.data("x", [None, 4])
    y = skiff.nn.functional.dropout(x, 0.5, training=True)
    main = static.default_main_program()
    test_prog = main.clone(for_test=True)
    ops = [op for op in test_prog.global_block().ops if op.type == "dropout"]
    assert ops and ops[0].attr("is_test") is True
    assert [op for op in main.global_block().ops if op.type == "dropout"][0].attr("is_test") is False
    assert str(test_prog).count('"dropout"') == 1
    skiff.exp(y)
    assert '"exp"' not in str(test_prog) and '"exp"' in str(main)


def test_variable_repr_and_program_text(static):
    x = static.data("x", [None, 4])
    assert "name=x)" in repr(x) and "tensor<-1x4xf32>" in repr(x)
    text = str(static.default_main_program())
    assert text.startswith("{\n") and 'name:"x"' in text and "tensor<-1x4xf32>" in text
    details = static.default_main_program().to_string(with_details=True)
    assert details.startswith("block 0 (parent -1):") and "var x: float32[-1, 4]" in details
