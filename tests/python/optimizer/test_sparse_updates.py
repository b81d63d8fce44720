"""Sparse (selected-rows) embedding gradients update parameters exactly as the dense
gradients do, for every optimizer, with weight decay and clipping; Adam's lazy_mode
touches only the looked-up rows, as PaddlePaddle's does."""
import numpy as np
import pytest

import skiff
import skiff.nn.functional as F
from skiff import optimizer as opt_mod

IDS = [np.array([[1, 3, 3], [7, 1, 0]]), np.array([[2, 2, 9], [3, 4, 1]]),
       np.array([[0, 5, 5], [5, 8, 3]]), np.array([[1, 1, 1], [6, 2, 7]])]


def _weight():
    return np.random.RandomState(3).uniform(-1, 1, (10, 4))


def _coeffs(step):
    return np.random.RandomState(50 + step).uniform(-1, 1, (2, 3, 4))


def _train(make_opt, sparse, steps=4, check_kind=True):
    w = skiff.nn.Parameter(skiff.to_tensor(_weight()), name="emb.w_0")
    opt = make_opt([w])
    for step in range(steps):
        out = F.embedding(skiff.to_tensor(IDS[step % len(IDS)]), w, sparse=sparse)
        loss = (out * out * skiff.to_tensor(_coeffs(step))).sum()
        loss.backward()
        if check_kind:
            assert w.grad._kind == ("selected_rows" if sparse else "dense")
        opt.step()
        opt.clear_grad()
    return w.numpy().copy()


MAKERS = {
    "sgd": lambda ps: opt_mod.SGD(0.1, parameters=ps),
    "sgd_l2": lambda ps: opt_mod.SGD(0.1, parameters=ps, weight_decay=0.1),
    "momentum": lambda ps: opt_mod.Momentum(0.1, 0.9, ps, use_nesterov=True),
    "adam": lambda ps: opt_mod.Adam(0.05, parameters=ps),
    "adam_l1": lambda ps: opt_mod.Adam(0.05, parameters=ps,
                                       weight_decay=skiff.regularizer.L1Decay(0.02)),
    "adamw": lambda ps: opt_mod.AdamW(0.05, parameters=ps, weight_decay=0.1),
    "rmsprop": lambda ps: opt_mod.RMSProp(0.05, parameters=ps, centered=True, momentum=0.3),
    "adagrad": lambda ps: opt_mod.Adagrad(0.1, parameters=ps),
    "clip_global": lambda ps: opt_mod.SGD(
        0.1, parameters=ps, grad_clip=skiff.nn.ClipGradByGlobalNorm(0.5)
        if hasattr(skiff.nn, "ClipGradByGlobalNorm") else opt_mod.ClipGradByGlobalNorm(0.5)),
    "clip_norm_adam": lambda ps: opt_mod.Adam(0.05, parameters=ps,
                                              grad_clip=opt_mod.ClipGradByNorm(0.3)),
    "clip_value": lambda ps: opt_mod.Momentum(0.1, parameters=ps,
                                              grad_clip=opt_mod.ClipGradByValue(0.2)),
}


@pytest.mark.parametrize("case", sorted(MAKERS))
def test_sparse_update_equals_dense(case):
    dense = _train(MAKERS[case], sparse=False)
    sparse = _train(MAKERS[case], sparse=True)
    assert not np.allclose(dense, _weight())
    np.testing.assert_allclose(sparse, dense, rtol=1e-12, atol=1e-14)


def test_lazy_adam_updates_only_looked_up_rows():
    w = _train(lambda ps: opt_mod.Adam(0.05, parameters=ps, lazy_mode=True), sparse=True,
               steps=1)
    touched = np.unique(IDS[0])
    untouched = np.setdiff1d(np.arange(10), touched)
    np.testing.assert_array_equal(w[untouched], _weight()[untouched])
    assert not np.allclose(w[touched], _weight()[touched])


def _lazy_adam_reference(lr, steps, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam applied row by row to the looked-up rows only (float64 numpy)."""
    w = _weight()
    m1, m2 = np.zeros_like(w), np.zeros_like(w)
    for step in range(steps):
        ids = IDS[step % len(IDS)]
        out = w[ids]
        grad_out = 2 * out * _coeffs(step)
        grad = np.zeros_like(w)
        np.add.at(grad, ids.reshape(-1), grad_out.reshape(-1, w.shape[1]))
        rows = np.unique(ids)
        t = step + 1
        m1[rows] = beta1 * m1[rows] + (1 - beta1) * grad[rows]
        m2[rows] = beta2 * m2[rows] + (1 - beta2) * grad[rows] ** 2
        m1_hat, m2_hat = m1[rows] / (1 - beta1 ** t), m2[rows] / (1 - beta2 ** t)
        w[rows] -= lr * m1_hat / (np.sqrt(m2_hat) + eps)
    return w


def test_lazy_adam_matches_row_wise_reference():
    # (PaddlePaddle 3.3's CPU sparse Adam departs from its own dense Adam even without
    # lazy_mode, so the reference here is Adam applied to the looked-up rows.)
    got = _train(lambda ps: opt_mod.Adam(0.05, parameters=ps, lazy_mode=True), sparse=True,
                 steps=4)
    np.testing.assert_allclose(got, _lazy_adam_reference(0.05, 4), rtol=1e-10, atol=1e-12)
    dense = _train(lambda ps: opt_mod.Adam(0.05, parameters=ps), sparse=False, steps=4)
    assert not np.allclose(got, dense)
