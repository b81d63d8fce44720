"""Weight decay (a float, L2Decay, L1Decay, a parameter's own regularizer, per group)
and gradient clipping (global norm, per-tensor norm, value; need_clip) against
PyTorch and PaddlePaddle."""
import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod
from skiff.optimizer import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from skiff.regularizer import L1Decay, L2Decay

from optim_common import (assert_same, initial_values, run_paddle, run_skiff, run_torch,
                          skiff_params)

torch = pytest.importorskip("torch")


def test_l2decay_object_equals_float_and_torch():
    by_float, _ = run_skiff(lambda ps: opt_mod.Momentum(0.05, 0.9, ps, weight_decay=0.1))
    by_object, _ = run_skiff(lambda ps: opt_mod.Momentum(0.05, 0.9, ps,
                                                         weight_decay=L2Decay(0.1)))
    assert_same(by_object, by_float, rtol=1e-14, atol=1e-15)
    assert_same(by_object, run_torch(lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9,
                                                                weight_decay=0.1)))


def test_l1decay_matches_paddle(paddle):
    lr = 2.0 ** -4
    got, _ = run_skiff(lambda ps: opt_mod.SGD(lr, parameters=ps, weight_decay=L1Decay(0.25)))
    want = run_paddle(paddle, lambda ps: paddle.optimizer.SGD(
        lr, parameters=ps, weight_decay=paddle.regularizer.L1Decay(0.25)))
    assert_same(got, want)
    plain, _ = run_skiff(lambda ps: opt_mod.SGD(lr, parameters=ps))
    assert not np.allclose(got[0], plain[0])


def test_parameter_regularizer_overrides_the_optimizer_decay():
    def make(ps):
        ps[0].regularizer = L2Decay(0.2)
        return opt_mod.SGD(0.1, parameters=ps, weight_decay=0.05)
    got, _ = run_skiff(make)
    want = run_torch(lambda ps: torch.optim.SGD([{"params": [ps[0]], "weight_decay": 0.2},
                                                 {"params": [ps[1]]}],
                                                lr=0.1, weight_decay=0.05))
    assert_same(got, want)


def test_global_norm_clip_matches_torch():
    def clip(ps):
        torch.nn.utils.clip_grad_norm_(ps, max_norm=0.5)
    got, _ = run_skiff(lambda ps: opt_mod.SGD(0.1, parameters=ps,
                                              grad_clip=ClipGradByGlobalNorm(0.5)))
    # torch divides by (norm + 1e-6): agreement to about 1e-6 relative
    want = run_torch(lambda ps: torch.optim.SGD(ps, lr=0.1), per_step=clip)
    assert_same(got, want, rtol=1e-6, atol=1e-7)
    unclipped, _ = run_skiff(lambda ps: opt_mod.SGD(0.1, parameters=ps))
    assert not np.allclose(got[0], unclipped[0], rtol=1e-3)


def test_global_norm_clip_leaves_param_grad_and_small_gradients():
    p = skiff_params(initial_values())
    opt = opt_mod.SGD(0.0, parameters=p, grad_clip=ClipGradByGlobalNorm(1e6))
    (p[0] * p[0]).sum().backward()
    before = p[0].grad.numpy().copy()
    clipped = opt._grad_clip([(p[0], p[0].grad)])
    np.testing.assert_allclose(clipped[0][1].numpy(), before, rtol=1e-15)
    clipped = ClipGradByGlobalNorm(0.1)([(p[0], p[0].grad)])
    np.testing.assert_allclose(np.linalg.norm(clipped[0][1].numpy()), 0.1, rtol=1e-12)
    np.testing.assert_array_equal(p[0].grad.numpy(), before)


def test_need_clip_false_is_neither_clipped_nor_counted():
    def make(ps):
        ps[1].need_clip = False
        return opt_mod.SGD(0.1, parameters=ps, grad_clip=ClipGradByGlobalNorm(0.3))

    def clip_first(ps):
        torch.nn.utils.clip_grad_norm_([ps[0]], max_norm=0.3)
    got, _ = run_skiff(make)
    want = run_torch(lambda ps: torch.optim.SGD(ps, lr=0.1), per_step=clip_first)
    assert_same(got, want, rtol=1e-6, atol=1e-7)


def test_clip_by_norm_clips_each_tensor_like_torch():
    def clip_each(ps):
        for p in ps:
            torch.nn.utils.clip_grad_norm_([p], max_norm=0.5)
    got, _ = run_skiff(lambda ps: opt_mod.SGD(0.1, parameters=ps, grad_clip=ClipGradByNorm(0.5)))
    want = run_torch(lambda ps: torch.optim.SGD(ps, lr=0.1), per_step=clip_each)
    assert_same(got, want, rtol=1e-6, atol=1e-7)
    by_global, _ = run_skiff(lambda ps: opt_mod.SGD(0.1, parameters=ps,
                                                    grad_clip=ClipGradByGlobalNorm(0.5)))
    assert not np.allclose(got[0], by_global[0])


def test_clip_by_value_matches_torch():
    def clip(ps):
        torch.nn.utils.clip_grad_value_(ps, 0.4)
    got, _ = run_skiff(lambda ps: opt_mod.Momentum(0.05, 0.9, ps,
                                                   grad_clip=ClipGradByValue(0.4)))
    want = run_torch(lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9), per_step=clip)
    assert_same(got, want)
    asymmetric = ClipGradByValue(max=0.5, min=-0.1)
    p = skiff_params(initial_values())
    (p[0] * p[0] * p[0]).sum().backward()
    out = asymmetric([(p[0], p[0].grad)])[0][1].numpy()
    np.testing.assert_array_equal(out, np.clip(p[0].grad.numpy(), -0.1, 0.5))


def test_clip_is_applied_before_weight_decay(paddle):
    lr = 2.0 ** -4
    got, _ = run_skiff(lambda ps: opt_mod.SGD(lr, parameters=ps, weight_decay=0.5,
                                              grad_clip=ClipGradByGlobalNorm(0.25)))
    want = run_paddle(paddle, lambda ps: paddle.optimizer.SGD(
        lr, parameters=ps, weight_decay=0.5, grad_clip=paddle.nn.ClipGradByGlobalNorm(0.25)))
    assert_same(got, want, rtol=1e-7)


def test_bad_arguments_raise():
    p = skiff_params(initial_values())
    with pytest.raises(TypeError, match="grad_clip"):
        opt_mod.SGD(0.1, parameters=p, grad_clip=0.5)
    with pytest.raises(ValueError):
        ClipGradByGlobalNorm(0.0)
    with pytest.raises(ValueError):
        ClipGradByValue(max=-1.0, min=1.0)
