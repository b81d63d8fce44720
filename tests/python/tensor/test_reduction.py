"""Reductions (skiff/tensor/reduction.py): sum, mean, max, min, prod, all, any, logsumexp
over axes, methods and integer sums, cumsum: values vs numpy/torch, gradients vs torch."""
import numpy as np
import pytest
import torch

import skiff

from tensor_reference import check_grad, rand


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("axis,keepdim", [(None, False), (1, False), (-1, True), ([0, 2], False),
                                          ((0, 1), True)])
def test_reductions(axis, keepdim, dtype):
    a = rand((3, 4, 5), dtype, 7)
    dims = axis if axis is None else (axis if isinstance(axis, int) else tuple(axis))
    targs = {} if dims is None else {"dim": dims, "keepdim": keepdim}
    def tprod(t, dim=None, keepdim=False):
        if dim is None:
            return torch.prod(t)
        for d in sorted([dim] if isinstance(dim, int) else [d % t.ndim for d in dim])[::-1]:
            t = torch.prod(t, d, keepdim=keepdim)
        return t

    for name, tfn in [("sum", torch.sum), ("mean", torch.mean), ("prod", tprod),
                      ("amax", torch.amax), ("amin", torch.amin), ("logsumexp", torch.logsumexp)]:
        sk = getattr(skiff, name)
        if dims is None:
            tf = (lambda t, f=tfn, n=name: f(t, dim=(0, 1, 2)) if n == "logsumexp" else f(t))
            got = check_grad(lambda x, s=sk: s(x), tf, a)
        else:
            got = check_grad(lambda x, s=sk: s(x, axis=axis, keepdim=keepdim),
                             lambda t, f=tfn: f(t, **targs), a)
        assert got.dtype == dtype
    for name in ("std", "var"):
        tf = getattr(torch, name)
        for unbiased in (True, False):
            corr = {"correction": 1 if unbiased else 0}
            check_grad(lambda x, n=name: getattr(skiff, n)(x, axis, unbiased, keepdim),
                       (lambda t, f=tf: f(t, **corr)) if dims is None else
                       (lambda t, f=tf: f(t, dim=dims, keepdim=keepdim, **corr)), a)


def test_max_min_with_methods_and_int_sums():
    a = np.array([[1, 5, 3], [4, 2, 6]], "int64")
    x = skiff.to_tensor(a)
    assert x.max().item() == 6 and x.min(axis=1).tolist() == [1, 2]
    assert x.sum().dtype == "int64" and x.sum(axis=0).tolist() == [5, 7, 9]
    assert skiff.to_tensor([True, True, False]).sum().item() == 2
    assert skiff.all(skiff.to_tensor([True, True])).item() is True
    assert skiff.any(x > 5, axis=1).tolist() == [False, True]
    assert x.numel() == 6 and skiff.numel(x).item() == 6
    assert skiff.logsumexp(skiff.to_tensor([-np.inf, -np.inf])).item() == -np.inf


def test_cumsum():
    a = rand((3, 4), "float64", 8)
    check_grad(lambda x: skiff.cumsum(x, axis=1), lambda t: torch.cumsum(t, 1), a)
    check_grad(lambda x: skiff.cumsum(x), lambda t: torch.cumsum(t.reshape(-1), 0), a)
    assert skiff.cumsum(skiff.to_tensor([1, 2, 3])).tolist() == [1, 3, 6]
