"""LBFGS: the same iterates as torch.optim.LBFGS in float64 on a quadratic and a small MLP,
with fixed steps and the strong-Wolfe line search, a short history, the stopping rules,
PaddlePaddle's LBFGS on one case, and argument errors."""
import numpy as np
import pytest

import skiff
from skiff import optimizer as opt_mod

torch = pytest.importorskip("torch")

RNG = np.random.RandomState(3)
A = RNG.uniform(-1, 1, (6, 6))
A = A @ A.T + 0.5 * np.eye(6)
B = RNG.uniform(-1, 1, 6)
X0 = RNG.uniform(-1, 1, 6)


def quadratic_skiff(x):
    xa = skiff.reshape(x, [1, 6])
    return 0.5 * skiff.sum(skiff.matmul(xa, skiff.to_tensor(A)) * xa) - skiff.sum(
        x * skiff.to_tensor(B))


def quadratic_torch(x):
    return 0.5 * x @ torch.tensor(A) @ x - x @ torch.tensor(B)


def run_skiff(loss_fn, values, steps, **kwargs):
    params = [skiff.nn.Parameter(skiff.to_tensor(v.copy())) for v in values]
    opt = opt_mod.LBFGS(parameters=params, **kwargs)
    trail = []

    def closure():
        opt.clear_grad()
        loss = loss_fn(*params)
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
        trail.append([p.numpy().copy() for p in params])
    return trail, opt


def run_torch(loss_fn, values, steps, **kwargs):
    kwargs = {("lr" if k == "learning_rate" else k): v for k, v in kwargs.items()}
    params = [torch.tensor(v.copy(), requires_grad=True) for v in values]
    opt = torch.optim.LBFGS(params, **kwargs)
    trail = []

    def closure():
        opt.zero_grad()
        loss = loss_fn(*params)
        loss.backward()
        return loss

    for _ in range(steps):
        opt.step(closure)
        trail.append([p.detach().numpy().copy() for p in params])
    return trail, opt


def assert_same_trail(got, want, rtol=1e-9, atol=1e-11):
    assert len(got) == len(want)
    for g_step, w_step in zip(got, want):
        for g, w in zip(g_step, w_step):
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)


QUADRATIC_CASES = {
    "fixed_step": dict(learning_rate=0.5, max_iter=4),
    "fixed_short_history": dict(learning_rate=0.25, max_iter=7, history_size=2),
    "strong_wolfe": dict(max_iter=5, line_search_fn="strong_wolfe"),
    "strong_wolfe_history": dict(max_iter=6, history_size=3, line_search_fn="strong_wolfe"),
}


@pytest.mark.parametrize("case", sorted(QUADRATIC_CASES))
def test_quadratic_matches_torch(case):
    kwargs = QUADRATIC_CASES[case]
    got, opt = run_skiff(quadratic_skiff, [X0], 3, **kwargs)
    want, topt = run_torch(quadratic_torch, [X0], 3, **kwargs)
    assert_same_trail(got, want)
    tstate = topt.state[topt._params[0]]
    assert (opt.state["func_evals"], opt.state["n_iter"]) == (tstate["func_evals"],
                                                              tstate["n_iter"])


def test_strong_wolfe_reaches_the_quadratic_minimum():
    """It stops once the loss changes by less than tolerance_change (1e-9), as torch does."""
    got, _ = run_skiff(quadratic_skiff, [X0], 2, max_iter=20, line_search_fn="strong_wolfe")
    want, _ = run_torch(quadratic_torch, [X0], 2, max_iter=20, line_search_fn="strong_wolfe")
    assert_same_trail(got, want)
    np.testing.assert_allclose(got[-1][0], np.linalg.solve(A, B), rtol=1e-4, atol=1e-6)


def rosenbrock_skiff(p):
    x, y = p[0:1], p[1:2]
    return skiff.sum((1 - x) ** 2 + 100 * (y - x * x) ** 2)


def rosenbrock_torch(p):
    return (1 - p[0]) ** 2 + 100 * (p[1] - p[0] ** 2) ** 2


@pytest.mark.parametrize("learning_rate", [1.0, 3.0])
def test_rosenbrock_line_search_matches_torch(learning_rate):
    """The curved valley makes the line search bracket, extrapolate and zoom."""
    kwargs = dict(learning_rate=learning_rate, max_iter=10, line_search_fn="strong_wolfe")
    start = [np.array([-1.5, 2.0])]
    got, _ = run_skiff(rosenbrock_skiff, start, 3, **kwargs)
    want, _ = run_torch(rosenbrock_torch, start, 3, **kwargs)
    assert_same_trail(got, want, rtol=1e-9, atol=1e-10)


MLP_RNG = np.random.RandomState(5)
MLP_VALUES = [MLP_RNG.uniform(-0.8, 0.8, (3, 4)), MLP_RNG.uniform(-0.2, 0.2, 4),
              MLP_RNG.uniform(-0.8, 0.8, (4, 1)), MLP_RNG.uniform(-0.2, 0.2, 1)]
MLP_X = MLP_RNG.uniform(-1, 1, (8, 3))
MLP_Y = np.sin(MLP_X.sum(1, keepdims=True))


def mlp_skiff(w1, b1, w2, b2):
    h = skiff.tanh(skiff.matmul(skiff.to_tensor(MLP_X), w1) + b1)
    return skiff.mean((skiff.matmul(h, w2) + b2 - skiff.to_tensor(MLP_Y)) ** 2)


def mlp_torch(w1, b1, w2, b2):
    h = torch.tanh(torch.tensor(MLP_X) @ w1 + b1)
    return ((h @ w2 + b2 - torch.tensor(MLP_Y)) ** 2).mean()


@pytest.mark.parametrize("kwargs", [dict(learning_rate=0.5, max_iter=5, history_size=4),
                                    dict(max_iter=8, line_search_fn="strong_wolfe")],
                         ids=["fixed_step", "strong_wolfe"])
def test_mlp_matches_torch(kwargs):
    got, _ = run_skiff(mlp_skiff, MLP_VALUES, 3, **kwargs)
    want, _ = run_torch(mlp_torch, MLP_VALUES, 3, **kwargs)
    assert_same_trail(got, want, rtol=1e-8, atol=1e-10)


def test_matches_paddle(paddle):
    got, _ = run_skiff(quadratic_skiff, [X0], 2, max_iter=4, history_size=3,
                       line_search_fn="strong_wolfe")
    p = paddle.create_parameter([6], "float64",
                                default_initializer=paddle.nn.initializer.Assign(X0.copy()))
    opt = paddle.optimizer.LBFGS(max_iter=4, history_size=3, line_search_fn="strong_wolfe",
                                 parameters=[p])

    def closure():
        opt.clear_grad()
        xa = p.reshape([1, 6])
        loss = 0.5 * (xa @ paddle.to_tensor(A) * xa).sum() - (p * paddle.to_tensor(B)).sum()
        loss.backward()
        return loss

    for step in range(2):
        opt.step(closure)
        np.testing.assert_allclose(got[step][0], p.numpy(), rtol=1e-9, atol=1e-11)


def test_stops_at_once_when_the_gradient_is_small():
    x = skiff.nn.Parameter(skiff.to_tensor(np.linalg.solve(A, B)))
    opt = opt_mod.LBFGS(parameters=[x], tolerance_grad=1e-6)
    calls = []

    def closure():
        calls.append(1)
        opt.clear_grad()
        loss = quadratic_skiff(x)
        loss.backward()
        return loss

    loss = opt.step(closure)
    assert len(calls) == 1 and isinstance(loss, skiff.Tensor)
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(A, B))


def test_max_eval_limits_closure_calls():
    x = skiff.nn.Parameter(skiff.to_tensor(X0.copy()))
    opt = opt_mod.LBFGS(learning_rate=0.1, max_iter=50, max_eval=6, parameters=[x],
                        tolerance_change=0.0, tolerance_grad=0.0)
    calls = []

    def closure():
        calls.append(1)
        opt.clear_grad()
        loss = quadratic_skiff(x)
        loss.backward()
        return loss

    opt.step(closure)
    assert len(calls) == 6


def test_errors():
    x = skiff.nn.Parameter(skiff.to_tensor(X0.copy()))
    with pytest.raises(ValueError, match="line_search_fn"):
        opt_mod.LBFGS(parameters=[x], line_search_fn="armijo")
    with pytest.raises(ValueError, match="history_size"):
        opt_mod.LBFGS(parameters=[x], history_size=0)
    with pytest.raises(TypeError, match="closure"):
        opt_mod.LBFGS(parameters=[x]).step(None)
    with pytest.raises(NotImplementedError, match="step"):
        opt_mod.LBFGS(parameters=[x]).minimize(None)
