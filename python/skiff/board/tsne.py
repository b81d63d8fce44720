"""Exact t-SNE in numpy (van der Maaten and Hinton, 2008): Gaussian affinities whose
bandwidth per point meets the perplexity, a Student-t kernel in the embedding, and
gradient descent on KL(P || Q) with momentum, per-coordinate gains and early
exaggeration. Quadratic in the number of points: meant for a few thousand.

    y = tsne(x, dims=2)                  # x: [n, d] -> y: [n, 2]
"""
import numpy as np

__all__ = ["tsne", "affinities", "kl_divergence", "kl_gradient"]


def _squared_distances(x):
    sq = (x * x).sum(axis=1)
    d2 = sq[:, None] + sq[None, :] - 2.0 * (x @ x.T)
    np.maximum(d2, 0.0, out=d2)
    np.fill_diagonal(d2, 0.0)
    return d2


def affinities(x, perplexity):
    """The symmetric joint probabilities P of t-SNE for the rows of ``x``: row i's
    Gaussian bandwidth is found by bisection so its entropy is log(perplexity)."""
    n = x.shape[0]
    d2 = _squared_distances(np.asarray(x, np.float64))
    np.fill_diagonal(d2, np.inf)
    d2 = d2 - d2.min(axis=1, keepdims=True)  # shift per row: same P, no underflow
    np.fill_diagonal(d2, np.inf)
    target = np.log(perplexity)
    beta = np.ones(n)
    lo, hi = np.zeros(n), np.full(n, np.inf)
    for _ in range(200):
        p = np.exp(-d2 * beta[:, None])
        sum_p = p.sum(axis=1)
        with np.errstate(invalid="ignore"):
            weighted = np.where(np.isinf(d2), 0.0, d2 * p).sum(axis=1)
        entropy = np.log(sum_p) + beta * weighted / sum_p
        diff = entropy - target
        if np.abs(diff).max() < 1e-5:
            break
        high = diff > 0  # too flat: narrow the Gaussian
        lo = np.where(high, beta, lo)
        hi = np.where(high, hi, beta)
        beta = np.where(high, np.where(np.isinf(hi), beta * 2.0, (beta + hi) / 2.0),
                        (beta + lo) / 2.0)
    p = p / sum_p[:, None]
    p = (p + p.T) / (2.0 * n)
    return np.maximum(p, 1e-12)


def _student_t(y):
    num = 1.0 / (1.0 + _squared_distances(y))
    np.fill_diagonal(num, 0.0)
    return num


def kl_divergence(p, y):
    """KL(P || Q) for affinities ``p`` and embedding ``y`` (diagonal excluded)."""
    num = _student_t(y)
    q = np.maximum(num / num.sum(), 1e-12)
    mask = ~np.eye(len(y), dtype=bool)
    return float((p[mask] * np.log(p[mask] / q[mask])).sum())


def kl_gradient(p, y, exaggeration=1.0):
    """d KL(exaggeration * P || Q) / d y, row i being
    4 * sum_j (p_ij - q_ij) (y_i - y_j) / (1 + |y_i - y_j|^2)."""
    num = _student_t(y)
    q = num / num.sum()
    w = (exaggeration * p - q) * num
    np.fill_diagonal(w, 0.0)
    return 4.0 * (w.sum(axis=1)[:, None] * y - w @ y)


def tsne(x, dims=2, perplexity=30.0, iterations=1000, seed=0):
    """A ``dims``-dimensional t-SNE embedding of the rows of ``x`` (deterministic for a
    seed). The perplexity is capped at (n - 1) / 3; inputs above 50 dimensions are first
    reduced to 50 by PCA."""
    x = np.asarray(x, np.float64)
    n = x.shape[0]
    if n < 2:
        return np.zeros((n, dims))
    x = x - x.mean(axis=0)
    if x.shape[1] > 50:
        _, _, vt = np.linalg.svd(x, full_matrices=False)
        x = x @ vt[:50].T
    p = affinities(x, min(perplexity, max((n - 1) / 3.0, 1.0))).astype(np.float32)
    rng = np.random.default_rng(seed)
    y = rng.normal(0.0, 1e-4, (n, dims)).astype(np.float32)
    update = np.zeros_like(y)
    gains = np.ones_like(y)
    rate = np.float32(max(n / 12.0 / 4.0, 50.0))
    # Work arrays reused every step (n x n allocations would dominate the time).
    num, w = np.empty((n, n), np.float32), np.empty((n, n), np.float32)
    left, right = np.ones((n, dims + 2), np.float32), np.ones((dims + 2, n), np.float32)
    y_one = np.ones((n, dims + 1), np.float32)
    target = p * np.float32(12.0)
    for it in range(iterations):
        if it == 250:
            target = p  # early exaggeration ends
        # num = 1 / (1 + |y_i - y_j|^2) from one product: [y, 1, 1 + |y|^2] . [-2y, 1 + |y|^2, 1]
        sq = (y * y).sum(axis=1)
        left[:, :dims], left[:, dims + 1] = y, 1.0 + sq
        right[:dims], right[dims] = -2.0 * y.T, sq
        np.matmul(left, right, out=num)
        np.reciprocal(num, out=num)
        np.fill_diagonal(num, 0.0)
        # w = (P - Q) * num, Q = num / sum(num); grad = 4 (diag(rowsum w) y - w y)
        np.multiply(num, np.float32(1.0 / num.sum()), out=w)
        np.subtract(target, w, out=w)
        w *= num
        y_one[:, :dims] = y
        wy = w @ y_one  # [w y, rowsum(w)] in one product
        grad = 4.0 * (wy[:, dims:] * y - wy[:, :dims])
        same = np.sign(grad) == np.sign(update)
        gains = np.maximum(np.where(same, gains * 0.8, gains + 0.2), 0.01).astype(np.float32)
        update = (0.5 if it < 250 else 0.8) * update - rate * gains * grad
        y = y + update
        y -= y.mean(axis=0)
    return y.astype(np.float64)
