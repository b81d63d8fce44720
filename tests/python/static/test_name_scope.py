"""paddle.static.name_scope: each op records the path of the scopes around it as Paddle
does (op_namescope, repeated names numbered), clones keep it, a prefix must be text."""
import pytest



def test_name_scope_records_paths_like_paddle(static):
    st = static
    x = st.data("x", [2, 3], "float32")
    with st.name_scope("s1"):
        a = x + 1
        with st.name_scope("s2"):
            b = a * 2
    with st.name_scope("s1"):
        c = b - 1
    d = c + 1
    ops = st.default_main_program().global_block().ops
    assert [op.attr("op_namescope") for op in ops] == ["/s1/", "/s1/s2/", "/s1_1/", "/"]
    assert ops[0].has_attr("op_namescope") and "op_namescope" in ops[0].all_attrs()
    clone = st.default_main_program().clone()
    assert clone.global_block().ops[1].attr("op_namescope") == "/s1/s2/"
    assert d is not None
    with pytest.raises(TypeError, match="prefix"):
        with st.name_scope(3):
            pass
