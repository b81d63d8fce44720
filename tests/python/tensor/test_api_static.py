"""The added tensor functions build programs in static mode: each expression run by the
executor gives the eager value, and its gradient (from the program) the eager one."""
import numpy as np
import pytest

import skiff
from helpers import check_static_matches_eager

st = pytest.importorskip("skiff.static")

A = np.arange(24, dtype="float32").reshape(2, 3, 4) / 7.0 - 1.0


def _idx(values):
    return skiff.to_tensor(np.array(values, dtype="int64"))


EXPRESSIONS = {
    "axes": lambda x: skiff.diagonal(x, 1, 1, 2).sum() + skiff.permute(x, [2, 0, 1])[0]
    .sum() + skiff.unflatten(skiff.swapaxes(x, 0, 2), 0, [2, 2]).mean(),
    "joining": lambda x: skiff.hstack(skiff.tensor_split(x, 3, axis=1))
    + skiff.repeat_interleave(x, 2, axis=1)[:, ::2],
    "scattering": lambda x: skiff.put_along_axis(x, _idx([[[0, 3, 3, 1]]]), x[:1, :1] * 2, 2,
                                                 "add")
    + skiff.index_add(x, _idx([2, 0]), 2, x[..., :2] * 3) + skiff.index_fill(x, _idx([1]), 1, 0.5),
    "numeric": lambda x: skiff.nan_to_num(x / skiff.floor(x * 2)) + skiff.diff(x, 1, 2, x[..., :1]),
    "products": lambda x: skiff.kron(x[0], x[1]).sum(0) + skiff.tensordot(x, x, [[0, 1], [0, 1]])
    .reshape([16]) + skiff.cdist(x, x + 1).sum(),
    "einsum": lambda x: skiff.einsum("bij,bkj->bik", x, x) + skiff.einsum("iji->j", x[:, :2, :2])
    .sum(),
    "logic": lambda x: skiff.where(skiff.isin(skiff.round(x * 2), _idx([0, 1]).astype("float32")),
                                   x, -x) + skiff.cast(skiff.isposinf(x / 0.0), "float32"),
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_static_matches_eager(name):
    check_static_matches_eager(EXPRESSIONS[name], A)


def test_triangle_indices_and_multinomial_in_a_program():
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            idx = skiff.tril_indices(4, 3, 0)
            draws = skiff.multinomial(skiff.to_tensor([0.0, 1.0, 0.0]), 3, replacement=True)
            exe = st.Executor(skiff.CPUPlace())
            got_idx, got_draws = exe.run(main, fetch_list=[idx, draws])
    finally:
        skiff.disable_static()
    np.testing.assert_array_equal(got_idx, np.stack(np.tril_indices(4, 0, 3)))
    assert got_draws.tolist() == [1, 1, 1]
