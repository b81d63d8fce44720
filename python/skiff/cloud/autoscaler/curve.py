"""A job's throughput as a function of its worker count, from what was measured
(``Job.throughput``), and the worth of one more worker compared across jobs."""

__all__ = ["throughput", "efficiency"]


def throughput(job, n):
    """Samples/s with ``n`` workers: linear between measured counts (and from 0 at 0),
    flat beyond the largest measured count; ``n`` itself when nothing was measured."""
    if not job.throughput:
        return float(n)
    points = _points(job.throughput)
    if n >= points[-1][0]:
        return points[-1][1]
    for (n0, t0), (n1, t1) in zip(points, points[1:]):
        if n0 <= n <= n1:
            return t0 + (t1 - t0) * (n - n0) / (n1 - n0)
    return 0.0


def efficiency(job, n):
    """What worker ``n + 1`` adds, as a share of what each of the ``n`` adds on average:
    (T(n+1) - T(n)) / (T(n) / n). 1 for linear scaling, 0 where the curve is flat (or
    unmeasured beyond), negative where it falls; 1 for a first worker."""
    now = throughput(job, n)
    if n <= 0 or now <= 0:
        return 1.0 if throughput(job, n + 1) > now else 0.0
    return (throughput(job, n + 1) - now) * n / now


_POINTS = {}


def _points(measured):
    """The measured curve as sorted (workers, samples/s) from (0, 0), kept per mapping (a
    driver passes the same mapping plan after plan) and rebuilt when its items change."""
    entry = _POINTS.get(id(measured))
    if entry is None or entry[0] is not measured or entry[1] != measured:
        if len(_POINTS) > 4096:
            _POINTS.clear()
        points = sorted({0: 0.0, **{int(k): float(v) for k, v in measured.items()}}.items())
        entry = _POINTS[id(measured)] = (measured, dict(measured), points)
    return entry[2]
