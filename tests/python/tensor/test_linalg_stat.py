"""Matrix products (matmul with transposes and batches, dot, bmm, outer, mv, t), norms
and median: values and gradients vs torch."""
import numpy as np
import pytest
import torch

import skiff
from helpers import check_grad, rand


@pytest.mark.parametrize("xs,ys", [((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((2, 3, 4), (2, 4, 5)),
                                   ((4,), (4, 5)), ((3, 4), (4,))])
def test_matmul_shapes_and_grads(xs, ys):
    check_grad(lambda x, y: x @ y, lambda x, y: x @ y, rand(xs, "float64", 1),
               rand(ys, "float64", 2))


def test_matmul_transposes_bmm_dot_outer_mv():
    a, b = rand((4, 3), "float64", 3), rand((5, 4), "float64", 4)
    check_grad(lambda x, y: skiff.matmul(x, y, transpose_x=True, transpose_y=True),
               lambda x, y: x.T @ y.T, a, b)
    check_grad(skiff.bmm, torch.bmm, rand((2, 3, 4), "float64", 5), rand((2, 4, 2), "float64", 6))
    check_grad(skiff.dot, torch.dot, rand((5,), "float64", 7), rand((5,), "float64", 8))
    check_grad(skiff.outer, torch.outer, rand((3,), "float64", 9), rand((4,), "float64", 10))
    check_grad(skiff.mv, torch.mv, rand((3, 4), "float64", 11), rand((4,), "float64", 12))
    check_grad(lambda x: x.t(), lambda t: t.t(), a)
    rows = skiff.dot(skiff.to_tensor(a), skiff.to_tensor(a))
    np.testing.assert_allclose(rows.numpy(), (a * a).sum(1))
    with pytest.raises(skiff.Error, match="bmm"):
        skiff.bmm(skiff.ones([2, 3]), skiff.ones([3, 2]))
    with pytest.raises(skiff.Error, match="matmul"):
        skiff.ones([2, 3]) @ skiff.ones([2, 3])


@pytest.mark.parametrize("p", ["fro", 2, 1, 3, np.inf, -np.inf])
def test_norm(p):
    a = rand((3, 4), "float64", 13)
    tp = "fro" if p == "fro" else p
    check_grad(lambda x: skiff.norm(x, p, axis=1), lambda t: torch.linalg.vector_norm(
        t, ord=2 if tp == "fro" else tp, dim=1), a)
    np.testing.assert_allclose(skiff.norm(skiff.to_tensor(a), p).numpy(),
                               torch.linalg.vector_norm(torch.tensor(a),
                                                        ord=2 if tp == "fro" else tp).numpy())


def test_median():
    a = rand((3, 5), "float64", 14)
    np.testing.assert_allclose(skiff.median(skiff.to_tensor(a)).numpy(), np.median(a))
    np.testing.assert_allclose(skiff.median(skiff.to_tensor(a), axis=1).numpy(),
                               np.median(a, 1))
    np.testing.assert_allclose(skiff.median(skiff.to_tensor(a[:, :4]), axis=1,
                                            keepdim=True).numpy(),
                               np.median(a[:, :4], 1, keepdims=True))
