"""The same tensor functions build programs in static mode: each expression run through
the executor gives the eager result, and its gradient (append_backward) the eager one."""
import numpy as np
import pytest

import skiff
from helpers import check_static_matches_eager

st = pytest.importorskip("skiff.static")

A = np.arange(24, dtype="float32").reshape(2, 3, 4) / 7.0 - 1.0

EXPRESSIONS = {
    "arith": lambda x: (x * 2 - 1) / 3 + 2 ** x - (1 - x) % 0.7 + x // 0.5,
    "pow": lambda x: skiff.pow(x * x + 1, x),
    "unary": lambda x: skiff.sin(x) + skiff.cos(x) + skiff.log1p(x * x) + skiff.floor(x),
    "compare": lambda x: skiff.where(x > 0.1, x, -x) + skiff.cast(x == x, "float32"),
    "reduce": lambda x: x.sum(axis=1) + x.mean(axis=1) + x.max(axis=1) - x.std(axis=1),
    "logsumexp": lambda x: skiff.logsumexp(x, axis=[0, 2]),
    "shape": lambda x: x.reshape([4, 6]).transpose([1, 0]).unsqueeze(0).flatten(1),
    "join": lambda x: skiff.concat(skiff.split(x, [1, -1], axis=2)[::-1], axis=2),
    "stack": lambda x: skiff.stack(skiff.unstack(x, axis=1), axis=0),
    "index": lambda x: x[1, ::-1, 1:3] + x[None, 0, :, -1:] * x[..., 0][-1:, :, None],
    "gather": lambda x: x[:, [2, 0]] + skiff.index_select(x, skiff.to_tensor([1, 1]), axis=1),
    "tril": lambda x: skiff.tril(x, -1) + skiff.triu(x, 2),
    "expand": lambda x: skiff.expand(x[:, :1], [2, 3, 4]) * skiff.tile(x[:1], [2, 1, 1]),
    "sort": lambda x: skiff.sort(x, axis=-1, descending=True) + skiff.topk(x, 4)[0],
    "cumsum": lambda x: skiff.cumsum(x, axis=1) + skiff.clip(x, -0.5, 0.5),
    "matmul": lambda x: x @ x.transpose([0, 2, 1]),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_static_matches_eager(name):
    check_static_matches_eager(EXPRESSIONS[name], A)


def test_static_setitem_and_mask_select():
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            x = st.data("x", [None, 4], "float32")
            y = x * 1.0
            y[:, 1] = 0.0
            picked = y[y > 0.5]
            exe = st.Executor(skiff.CPUPlace())
            exe.run(startup)
            a = np.arange(8, dtype="float32").reshape(2, 4) / 4
            got_y, got_p = exe.run(main, feed={"x": a}, fetch_list=[y, picked])
    finally:
        skiff.disable_static()
    want = a.copy()
    want[:, 1] = 0
    np.testing.assert_array_equal(got_y, want)
    np.testing.assert_array_equal(got_p, want[want > 0.5])
