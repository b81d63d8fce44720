"""einsum against torch.einsum: explicit and implicit outputs, repeated labels within an
operand, ellipses, broadcasting, three operands; gradients; bad equations."""
import numpy as np
import pytest
import torch

import skiff
from tensor_reference import check_grad, rand

CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("iji->j", [(3, 2, 3)]),
    ("ij->ji", [(2, 3)]),
    ("ij->", [(2, 3)]),
    ("ij", [(2, 3)]),
    ("ji", [(2, 3)]),
    ("i,i->", [(4,), (4,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("i,j", [(3,), (4,)]),
    ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("...ii->...i", [(2, 3, 3)]),
    ("i...->...", [(3, 2, 4)]),
    ("b h i d, b h j d -> b h i j", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,kj->ik", [(1, 3), (4, 3)]),
    ("ik,jk->", [(2, 3), (4, 1)]),
    ("abc,cd,da->b", [(2, 3, 4), (4, 5), (5, 2)]),
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),
]


@pytest.mark.parametrize("equation,shapes", CASES)
def test_einsum_matches_torch(equation, shapes):
    arrays = [rand(s, "float64", seed=i) for i, s in enumerate(shapes)]
    check_grad(lambda *xs: skiff.einsum(equation, *xs),
               lambda *xs: torch.einsum(equation, *xs), *arrays)


def test_einsum_float32_and_list_operands():
    a, b = rand((3, 4), "float32", 1), rand((4, 2), "float32", 2)
    got = skiff.einsum("ij,jk->ik", [skiff.to_tensor(a), skiff.to_tensor(b)])
    np.testing.assert_allclose(got.numpy(), a @ b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("equation,shapes,match", [
    ("ij,jk->ik", [(2, 3), (4, 5)], "sizes"),
    ("ij->ik", [(2, 3)], "output label"),
    ("ij,jk", [(2, 3)], "terms"),
    ("ijk", [(2, 3)], "names 3 dims"),
    ("ij->ii", [(2, 3)], "repeats"),
    ("i1", [(2, 3)], "not a letter"),
    ("ij->i->j", [(2, 3)], "'->'"),
])
def test_einsum_errors(equation, shapes, match):
    ops = [skiff.ones(list(s)) for s in shapes]
    with pytest.raises(skiff.Error, match=match):
        skiff.einsum(equation, *ops)
