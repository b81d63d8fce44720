"""Program state in files and bytes (skiff/static/io_state.py): save_to_file /
load_from_file, serialize / deserialize_persistables, load / set_program_state."""
import numpy as np
import pytest

rng = np.random.default_rng(5)


def _fc_program(st):
    x = st.data("x", [None, 3], "float32")
    y = st.nn.fc(x, 2)
    return x, y


def test_bytes_files_and_persistables_round_trip(static, tmp_path):
    st = static
    x, y = _fc_program(st)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    feed = {"x": rng.standard_normal((2, 3)).astype("float32")}
    before, = exe.run(feed=feed, fetch_list=[y])
    data = st.serialize_persistables([x], [y], exe)
    program_bytes = st.serialize_program([x], [y])
    st.save_to_file(str(tmp_path / "m.params"), data)
    st.save_to_file(str(tmp_path / "sub" / "m.model"), program_bytes)
    assert st.load_from_file(str(tmp_path / "m.params")) == data
    program = st.deserialize_program(st.load_from_file(str(tmp_path / "sub" / "m.model")))
    with st.scope_guard(st.Scope()):
        st.deserialize_persistables(program, st.load_from_file(str(tmp_path / "m.params")),
                                    exe)
        after, = exe.run(program, feed=feed, fetch_list=[program.desc.fetch_names[0]])
    np.testing.assert_array_equal(before, after)
    with pytest.raises(ValueError, match="content"):
        st.save_to_file(str(tmp_path / "bad"), "text")
    with pytest.raises(ValueError, match="path"):
        st.load_from_file(str(tmp_path / "missing"))
    with pytest.raises(TypeError, match="data"):
        st.deserialize_persistables(program, "nope", exe)


def test_load_and_set_program_state(static, tmp_path):
    st = static
    x, y = _fc_program(st)
    exe = st.Executor()
    exe.run(st.default_startup_program())
    main = st.default_main_program()
    prefix = str(tmp_path / "ckpt" / "model")
    st.save(main, prefix)
    state = st.load_program_state(prefix)
    params = main.all_parameters()
    assert sorted(state) == sorted(p.name for p in params)
    for p in params:
        np.testing.assert_array_equal(state[p.name],
                                      np.array(st.global_scope().find_var(p.name).get_tensor()))
    only = st.load_program_state(prefix + ".skparams", var_list=[params[0]])
    assert list(only) == [params[0].name]
    feed = {"x": np.ones((1, 3), "float32")}
    before, = exe.run(main, feed=feed, fetch_list=[y])
    with st.scope_guard(st.Scope()):
        st.set_program_state(main, state)
        after, = exe.run(main, feed=feed, fetch_list=[y])
        np.testing.assert_array_equal(before, after)
        bad = {params[0].name: np.zeros((7, 7), "float32")}
        with pytest.raises(ValueError, match=params[0].name):
            st.set_program_state(main, bad)
    with pytest.raises(ValueError, match="model_path"):
        st.load_program_state(str(tmp_path / "nothing"))
