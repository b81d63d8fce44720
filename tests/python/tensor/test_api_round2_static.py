"""Each family of the second round of tensor functions builds a static program: the
executor gives the eager value, and the program's gradient the eager one."""
import numpy as np
import pytest

import skiff
from helpers import check_static_matches_eager

st = pytest.importorskip("skiff.static")

A = np.arange(24, dtype="float32").reshape(2, 3, 4) / 7.0 - 1.0


def _idx(values):
    return skiff.to_tensor(np.array(values, dtype="int64"))


EXPRESSIONS = {
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


def test_bincount_refuses_a_program():
    skiff.enable_static()
    try:
        with st.program_guard(st.Program(), st.Program()):
            x = st.data("x", [4], "int64")
            with pytest.raises(skiff.Error, match="bincount: the length"):
                skiff.bincount(x)
    finally:
        skiff.disable_static()
