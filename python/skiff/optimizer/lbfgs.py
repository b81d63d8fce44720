"""L-BFGS (Paddle's paddle.optimizer.LBFGS, eager mode): quasi-Newton steps from the last
``history_size`` curvature pairs, each a move of fixed length ``learning_rate`` or one found
by a strong-Wolfe line search. The parameters are handled as one flat vector built with
skiff ops; the scalar decisions (dot products, norms) are read back as floats."""
from .. import _C_ops
import math
import numbers

from ..autograd import enable_grad, no_grad
from ..framework.mode import mode
from .optimizer import Optimizer, _as_float

__all__ = ["LBFGS"]


def _dot(a, b):
    return float(_C_ops.reduce_sum(_C_ops.elementwise_mul(a, b)).numpy())


def _abs_max(a):
    return float(_C_ops.reduce_max(_C_ops.abs(a)).numpy())


def _abs_sum(a):
    return float(_C_ops.reduce_sum(_C_ops.abs(a)).numpy())


def _axpy(alpha, x, y):
    """alpha * x + y."""
    return _C_ops.elementwise_add(_C_ops.scale(x, scale=float(alpha)), y)


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, kept
    within ``bounds`` (default: between x1 and x2); their middle when the cubic has none."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(disc)
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, low), high)


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step t along d meeting the strong Wolfe conditions: a bracketing phase that
    extrapolates by cubic interpolation, then zooming into the bracket. evaluate(t) gives
    (loss, flat gradient) at x + t d. Returns (loss, gradient, t, evaluations)."""
    d_norm = _abs_max(d)
    f_new, g_new = evaluate(t)
    evals, gtd_new = 1, _dot(g_new, d)
    prev = (0.0, f, g, gtd)
    bracket, done, it = None, False, 0
    while it < max_ls:
        if f_new > f + c1 * t * gtd or (it > 1 and f_new >= prev[1]):
            bracket = [prev, (t, f_new, g_new, gtd_new)]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, done = [(t, f_new, g_new, gtd_new)], True
            break
        if gtd_new >= 0:
            bracket = [prev, (t, f_new, g_new, gtd_new)]
            break
        grown = _cubic_minimum(prev[0], prev[1], prev[3], t, f_new, gtd_new,
                               bounds=(t + 0.01 * (t - prev[0]), t * 10))
        prev = (t, f_new, g_new, gtd_new)
        t = grown
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, _dot(g_new, d), it + 1
    if it == max_ls:
        bracket = [(0.0, f, g, gtd), (t, f_new, g_new, gtd_new)]

    def low_high():
        return (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)

    lo, hi = low_high()
    stalled = False
    while not done and it < max_ls:
        (a, fa, _, ga), (b, fb, _, gb) = bracket
        if abs(b - a) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(a, fa, ga, b, fb, gb)
        top, bottom = max(a, b), min(a, b)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:  # too close to an end: push inwards
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t)
        evals, gtd_new, it = evals + 1, _dot(g_new, d), it + 1
        point = (t, f_new, g_new, gtd_new)
        if f_new > f + c1 * t * gtd or f_new >= bracket[lo][1]:
            bracket[hi] = point
            lo, hi = low_high()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[hi][0] - bracket[lo][0]) >= 0:
                bracket[hi] = bracket[lo]
            bracket[lo] = point
    t, f_new, g_new, _ = bracket[lo]
    return f_new, g_new, t, evals


def _check_int(value, what):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"LBFGS: {what} must be a positive int, got {value!r}")
    return int(value)


class LBFGS(Optimizer):
    """step(closure) runs up to max_iter L-BFGS iterations (closure: clears the gradients,
    computes the loss, backpropagates and returns it). Stops when max|grad| <=
    tolerance_grad, or a step or the loss changes by less than tolerance_change, or after
    max_eval (default max_iter * 5 // 4) closure calls. line_search_fn: None (fixed steps)
    or 'strong_wolfe'. The gradients are used as the closure leaves them."""

    def __init__(self, learning_rate=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None, parameters=None,
                 weight_decay=None, grad_clip=None, name=None):
        self.learning_rate = _as_float(learning_rate, "learning_rate", self)
        self.max_iter = _check_int(max_iter, "max_iter")
        self.max_eval = self.max_iter * 5 // 4 if max_eval is None else _check_int(
            max_eval, "max_eval")
        self.tolerance_grad = _as_float(tolerance_grad, "tolerance_grad", self)
        self.tolerance_change = _as_float(tolerance_change, "tolerance_change", self)
        self.history_size = _check_int(history_size, "history_size")
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', "
                             f"got {line_search_fn!r}")
        self.line_search_fn = line_search_fn
        super().__init__(self.learning_rate, parameters, weight_decay, grad_clip, name)
        self._params = list(self._parameter_list)
        self.state = {"func_evals": 0, "n_iter": 0}

    # ----- the parameters as one flat vector --------------------------------------------
    def _flat_grad(self):
        parts = [_C_ops.reshape(p.grad if p.grad is not None else
                       _C_ops.fill_any_like(p, value=0.0, dtype=""),
                                shape=[-1]) for p in self._params]
        return _C_ops.concat(parts, axis=0)

    def _move(self, t, d):
        """Adds t * d to the parameters in place."""
        sizes = [int(math.prod(p.shape)) for p in self._params]
        parts = _C_ops.split(d, sections=sizes, axis=0, output_counts=[len(sizes)])
        parts = parts[0] if isinstance(parts, tuple) else parts
        for p, part in zip(self._params, parts):
            step = _C_ops.reshape(part, shape=[int(s) for s in p.shape])
            _ = _C_ops.elementwise_add(p, _C_ops.scale(step, scale=float(t)), out=[p])

    def _evaluate_at(self, closure, t, d):
        """(loss, flat gradient) at the parameters + t * d; the parameters are restored."""
        saved = [_C_ops.assign(p) for p in self._params]
        self._move(t, d)
        with enable_grad():
            loss = float(closure())
        grad = self._flat_grad()
        for p, value in zip(self._params, saved):
            _ = _C_ops.assign(value, out=[p])
        return loss, grad

    # ----- the iterations ---------------------------------------------------------------
    def _direction(self, grad):
        """-H grad by the two-loop recursion over the stored curvature pairs."""
        s_hist, y_hist, rho = self.state["old_sk"], self.state["old_yk"], self.state["ro"]
        q = _C_ops.scale(grad, scale=-1.0)
        alphas = [0.0] * len(s_hist)
        for i in reversed(range(len(s_hist))):
            alphas[i] = _dot(s_hist[i], q) * rho[i]
            q = _axpy(-alphas[i], y_hist[i], q)
        r = _C_ops.scale(q, scale=float(self.state["H_diag"]))
        for i in range(len(s_hist)):
            beta = _dot(y_hist[i], r) * rho[i]
            r = _axpy(alphas[i] - beta, s_hist[i], r)
        return r

    def _remember(self, grad):
        """Stores the newest curvature pair (s, y) when y.s is positive."""
        state = self.state
        y = _C_ops.elementwise_sub(grad, state["prev_flat_grad"])
        s = _C_ops.scale(state["d"], scale=float(state["alpha"]))
        ys = _dot(y, s)
        if ys > 1e-10:
            if len(state["old_yk"]) == self.history_size:
                for key in ("old_yk", "old_sk", "ro"):
                    state[key].pop(0)
            state["old_yk"].append(y)
            state["old_sk"].append(s)
            state["ro"].append(1.0 / ys)
            state["H_diag"] = ys / _dot(y, y)

    @no_grad()
    def step(self, closure):
        """Runs the iterations; returns the loss the first closure call gave."""
        if mode.static:
            raise RuntimeError("LBFGS.step runs in eager mode only")
        if not callable(closure):
            raise TypeError("LBFGS.step: closure must be a callable returning the loss")
        state, tol_change = self.state, self.tolerance_change
        with enable_grad():
            first_loss = closure()
        loss, evals = float(first_loss), 1
        state["func_evals"] += 1
        grad = self._flat_grad()
        if _abs_max(grad) <= self.tolerance_grad:
            return first_loss
        for n_iter in range(1, self.max_iter + 1):
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                state.update(old_yk=[], old_sk=[], ro=[], H_diag=1.0)
                d = _C_ops.scale(grad, scale=-1.0)
            else:
                self._remember(grad)
                d = self._direction(grad)
            state["d"], state["prev_flat_grad"] = d, _C_ops.assign(grad)
            state["prev_loss"] = prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / _abs_sum(grad)) * self.learning_rate
            else:
                t = self.learning_rate
            state["alpha"] = t
            gtd = _dot(grad, d)
            if gtd > -tol_change:
                break
            if self.line_search_fn == "strong_wolfe":
                loss, grad, t, used = _strong_wolfe(
                    lambda step: self._evaluate_at(closure, step, d), t, d, loss, grad, gtd)
                self._move(t, d)
                state["alpha"] = t
            else:
                self._move(t, d)
                used = 0
                if n_iter != self.max_iter:
                    with enable_grad():
                        loss = float(closure())
                    grad, used = self._flat_grad(), 1
            evals += used
            state["func_evals"] += used
            if used and _abs_max(grad) <= self.tolerance_grad:
                break
            if abs(t) * _abs_max(d) <= tol_change or abs(loss - prev_loss) < tol_change:
                break
            if evals >= self.max_eval:
                break
        return first_loss

    def state_dict(self):
        """{'state': the iteration state (counters, history, last direction and step)}."""
        return {"state": dict(self.state)}

    def set_state_dict(self, state_dict):
        """Restores what state_dict returned."""
        self.state = dict(state_dict["state"])

    load_state_dict = set_state_dict

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        raise NotImplementedError("LBFGS does not support minimize; call step(closure)")
