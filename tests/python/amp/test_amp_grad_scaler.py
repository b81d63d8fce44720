"""skiff.amp.GradScaler: loss scaling, unscaling, skipped steps on inf/NaN, scale updates
following Paddle's rules (Paddle's CPU build disables its scaler, so the expected values
are written out from its update rule)."""
import numpy as np
import pytest

import skiff


def _setup(init=1024.0, **kw):
    skiff.seed(0)
    model = skiff.nn.Linear(3, 1)
    opt = skiff.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    return model, opt, skiff.amp.GradScaler(init_loss_scaling=init, **kw)


def _loss(model, bad=False):
    x = np.ones((2, 3), "float32")
    if bad:
        x[0, 0] = np.inf
    return skiff.mean(model(skiff.to_tensor(x)))


def test_scaled_step_equals_plain_step():
    model, opt, scaler = _setup()
    w0 = model.weight.numpy().copy()
    scaled = scaler.scale(_loss(model))
    np.testing.assert_allclose(scaled.numpy(), _loss(model).numpy() * 1024.0, rtol=1e-6)
    scaled.backward()
    scaler.step(opt)
    scaler.update()
    # d mean(x w + b) / dw = 1 per weight (x = 1): the unscaled gradient.
    np.testing.assert_allclose(model.weight.numpy(), w0 - 0.1, rtol=1e-6)
    assert scaler.state_dict()["incr_count"] == 1


def test_inf_gradient_skips_step_and_halves_scale():
    model, opt, scaler = _setup()
    w0 = model.weight.numpy().copy()
    scaler.scale(_loss(model, bad=True)).backward()
    scaler.minimize(opt, None)
    np.testing.assert_array_equal(model.weight.numpy(), w0)
    state = scaler.state_dict()
    assert state["scale"][0] == 512.0 and state["decr_count"] == 0 and state["incr_count"] == 0


def test_scale_updates_like_paddle():
    model, opt, scaler = _setup(init=8.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=2)
    scales = []
    for bad in [False, False, True, False, True, True, False]:
        opt.clear_grad()
        scaler.scale(_loss(model, bad)).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(float(scaler.state_dict()["scale"][0]))
    # Paddle's rule: x2 after 2 good steps in a row, x0.5 after 2 bad ones (counted since
    # the last good step resets them).
    assert scales == [8.0, 16.0, 16.0, 16.0, 16.0, 8.0, 8.0]


def test_unscale_then_step_and_state_errors():
    model, opt, scaler = _setup()
    scaler.scale(_loss(model)).backward()
    scaler.unscale_(opt)
    np.testing.assert_allclose(model.weight.grad.numpy(), np.ones((3, 1)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="unscale_"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step"):
        scaler.step(opt)
    scaler.update()


def test_state_dict_round_trip_and_disabled():
    _, _, scaler = _setup(init=64.0)
    other = skiff.amp.GradScaler()
    other.load_state_dict(scaler.state_dict())
    assert other.get_init_loss_scaling() == 64.0 and other.get_incr_every_n_steps() == 2000
    off = skiff.amp.GradScaler(enable=False)
    t = skiff.to_tensor([2.0])
    assert off.scale(t) is t and off.state_dict() == {}
    with pytest.raises(ValueError, match="decr_ratio"):
        skiff.amp.GradScaler(decr_ratio=1.5)


def test_training_inside_auto_cast():
    model, opt, scaler = _setup()
    losses = []
    for _ in range(5):
        with skiff.amp.auto_cast(dtype="bfloat16"):
            loss = skiff.mean((model(skiff.ones([4, 3])) - 3.0) ** 2)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    assert losses[-1] < losses[0]
