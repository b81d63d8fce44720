"""A run's figures as a JSON-ready dict: utilisation (time-averaged requested resources of
placed workers and pods over the cluster's total; off-peak: while the services' demand is
at its lowest), job completion and pending times, scaling actions, services' unmet demand."""
import math

from ..autoscaler.state import Resources

__all__ = ["summarize", "percentile"]


def percentile(values, q):
    """The ``q``-th percentile (0-100) of ``values``, linearly interpolated; None if empty."""
    xs = sorted(values)
    if not xs:
        return None
    k = (len(xs) - 1) * q / 100.0
    lo, hi = math.floor(k), math.ceil(k)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def _mean(values):
    return sum(values) / len(values) if values else None


def _utilisation(run, total):
    """(overall, off-peak) time-averaged share of ``total`` CPU and GPU in use."""
    lowest = min((d for _, _, d, _ in run.timeline), default=0)
    sums = {"all": [0.0, 0.0, 0.0], "off_peak": [0.0, 0.0, 0.0]}
    points = run.timeline + [(run.end, None, None, None)]
    for (t, used, demand, _), (t_next, *_) in zip(points, points[1:]):
        dt = max(0.0, min(t_next, run.end) - t)
        for key in ("all", "off_peak") if demand == lowest else ("all",):
            sums[key][0] += used.cpu * dt
            sums[key][1] += used.gpu * dt
            sums[key][2] += dt

    def share(key, used_sum, capacity):
        seconds = sums[key][2]
        return round(used_sum / (capacity * seconds), 4) if capacity and seconds else None

    return {"cpu": share("all", sums["all"][0], total.cpu),
            "gpu": share("all", sums["all"][1], total.gpu),
            "cpu_off_peak": share("off_peak", sums["off_peak"][0], total.cpu),
            "gpu_off_peak": share("off_peak", sums["off_peak"][1], total.gpu),
            "off_peak_seconds": round(sums["off_peak"][2], 3)}


def summarize(run):
    """The run's figures (a dict of plain numbers; equal runs give equal dicts)."""
    total = sum((n.capacity for n in run.nodes), Resources())
    jobs = [r for r in run.jobs.values() if not r.failed and r.spec.arrival <= run.end]
    jct = [r.finished - r.spec.arrival for r in jobs if r.finished is not None]
    pending = [(r.started if r.started is not None else run.end) - r.spec.arrival
               for r in jobs]

    def rounded(x):
        return None if x is None else round(x, 3)

    return {
        "end": rounded(run.end),
        "utilisation": _utilisation(run, total),
        "jobs": len(jobs),
        "finished": len(jct),
        "never_started": sum(r.started is None for r in jobs),
        "failed": sum(r.failed for r in run.jobs.values()),
        "jct_mean": rounded(_mean(jct)),
        "jct_p90": rounded(percentile(jct, 90)),
        "pending_mean": rounded(_mean(pending)),
        "pending_p90": rounded(percentile(pending, 90)),
        "admissions": run.admissions,
        "scaling_actions": run.scalings,
        "preemptions": run.preemptions,
        "plans": run.plans,
        "unmet_pod_seconds": rounded(run.unmet_pod_seconds),
        "completion": {r.spec.name: rounded(r.finished) for r in run.jobs.values()},
    }
