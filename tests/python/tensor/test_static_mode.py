"""Tensor functions build programs in static mode: each expression, run through the
executor, gives the eager result, and its gradient (append_backward) the eager one; setitem
and masked_select in a program; tril_indices and multinomial in a program; bincount refuses
a program (its length depends on the values)."""
import numpy as np
import pytest

import skiff
from tensor_reference import check_static_matches_eager

st = pytest.importorskip("skiff.static")

A = np.arange(24, dtype="float32").reshape(2, 3, 4) / 7.0 - 1.0


def _idx(values):
    return skiff.to_tensor(np.array(values, dtype="int64"))


EXPRESSIONS = {
    # arithmetic, reductions, shapes, indexing
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
    # one expression per module: axes, joining, scattering, numeric, products, einsum, logic
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
    # manipulation and composite, in place, matrices, search and statistics, scatters
    "basics": lambda x: skiff.narrow(x, 2, 1, 2) * skiff.crop(x, [2, 3, 2], [0, 0, 2])
    + skiff.take(x, _idx([[0, 23], [-1, 5], [7, 8]]), "wrap").reshape([1, 3, 2])
    + skiff.ldexp(skiff.rot90(x, 1, [1, 2])[:, :3, :2], _idx([1, -1])),
    "in_place": lambda x: skiff.log2_(skiff.abs(x) + 1.0) + skiff.tril_(x * 2.0)
    + skiff.divide_(x * 1.0, 3.0, rounding_mode="floor"),
    "matrix": lambda x: skiff.addmm(x[0, :, :3], x[0], skiff.t(x[1]), 0.5, 2.0).sum()
    + skiff.diag_embed(x[0], 1).sum() + skiff.cross(x[:, :, :3], x[:, :, 1:]).sum()
    + skiff.renorm(x, 2, 1, 1.5).sum() + skiff.trapezoid(x, dx=0.5).sum()
    + skiff.vander(x[0, 0], 3).sum() + skiff.block_diag([x[0], x[1, 0]]).sum(),
    "search": lambda x: skiff.kthvalue(x, 2, 1)[0].sum() + skiff.mode(skiff.round(x), 2)[0]
    .sum() + skiff.cast(skiff.searchsorted(skiff.sort(x[0]), x[1]), "float32").sum()
    + skiff.cast(skiff.histogram(x, 4), "float32").sum() + skiff.msort(x).sum(),
    "scatter": lambda x: skiff.index_put(x, (_idx([0, 1]), _idx([2, 0])), x[0, :2] * 3, True)
    + skiff.masked_scatter(x, x > 0, x * 2) + skiff.diagonal_scatter(x, x[:, 0, :3] * 0.5, 1,
                                                                     1, 2)
    + skiff.select_scatter(x, x[:, 1] * 4, 1, 2) + skiff.scatter_nd_add(x, _idx([[1, 2]]),
                                                                        x[:1, 0] * 2),
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


def test_bincount_refuses_a_program():
    skiff.enable_static()
    try:
        with st.program_guard(st.Program(), st.Program()):
            x = st.data("x", [4], "int64")
            with pytest.raises(skiff.Error, match="bincount: the length"):
                skiff.bincount(x)
    finally:
        skiff.disable_static()
