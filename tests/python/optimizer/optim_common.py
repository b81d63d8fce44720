"""Shared setup for the optimizer tests: one loss, the same starting values and data,
run under skiff, PyTorch and PaddlePaddle for a few steps."""
import numpy as np

import skiff

SHAPES = [(3, 4), (5,)]


def initial_values(seed=0, dtype="float64"):
    rng = np.random.RandomState(seed)
    return [rng.uniform(-1.5, 1.5, s).astype(dtype) for s in SHAPES]


def step_data(step, dtype="float64"):
    """Per-step coefficients (c, d) for every parameter: loss = sum(c * p^3 + d * p)."""
    rng = np.random.RandomState(100 + step)
    return [(rng.uniform(0.1, 1.0, s).astype(dtype), rng.uniform(-1, 1, s).astype(dtype))
            for s in SHAPES]


def skiff_params(values, **attrs):
    params = []
    for v in values:
        p = skiff.nn.Parameter(skiff.to_tensor(v.copy()))
        for k, a in attrs.items():
            setattr(p, k, a)
        params.append(p)
    return params


def skiff_loss(params, step):
    total = None
    for p, (c, d) in zip(params, step_data(step, params[0].numpy().dtype)):
        term = (p * p * p * skiff.to_tensor(c)).sum() + (p * skiff.to_tensor(d)).sum()
        total = term if total is None else total + term
    return total


def run_skiff(make_opt, steps=5, values=None, scheduler=None, params=None):
    params = params or skiff_params(values or initial_values())
    opt = make_opt(params)
    for step in range(steps):
        skiff_loss(params, step).backward()
        opt.step()
        opt.clear_grad()
        if scheduler is not None:
            scheduler.step()
    return [p.numpy().copy() for p in params], opt


def run_torch(make_opt, steps=5, values=None, per_step=None):
    import torch
    values = values or initial_values()
    params = [torch.tensor(v.copy(), requires_grad=True) for v in values]
    opt = make_opt(params)
    for step in range(steps):
        opt.zero_grad()
        loss = sum((p * p * p * torch.tensor(c)).sum() + (p * torch.tensor(d)).sum()
                   for p, (c, d) in zip(params, step_data(step, values[0].dtype)))
        loss.backward()
        if per_step is not None:
            per_step(params)
        opt.step()
    return [p.detach().numpy().copy() for p in params]


def paddle_params(paddle, values):
    return [paddle.create_parameter(list(v.shape), str(v.dtype),
                                    default_initializer=paddle.nn.initializer.Assign(v.copy()))
            for v in values]


def run_paddle(paddle, make_opt, steps=5, values=None, scheduler=None):
    values = values or initial_values()
    params = paddle_params(paddle, values)
    opt = make_opt(params)
    for step in range(steps):
        loss = sum((p * p * p * paddle.to_tensor(c)).sum() + (p * paddle.to_tensor(d)).sum()
                   for p, (c, d) in zip(params, step_data(step, values[0].dtype)))
        loss.backward()
        opt.step()
        opt.clear_grad()
        if scheduler is not None:
            scheduler.step()
    return [p.numpy().copy() for p in params]


def assert_same(actual, expected, rtol=1e-10, atol=1e-12):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol)
