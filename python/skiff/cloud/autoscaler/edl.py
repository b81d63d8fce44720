"""EDL's published autoscaler (the PaddlePaddle elastic deep learning design): jobs grow,
least fulfilled first, while the cluster's CPU requests stay under ``max_load``; they
shrink, most fulfilled first, above it; queued jobs start in submission order."""

from .placement import busiest, most_free
from .room import admit, could_admit, make_room_for_service

__all__ = ["step", "grow_key"]


def grow_key(job):
    """Growth order, smallest first: least fulfilled, then higher priority, then earlier
    submitted, then name. Shrinking takes the largest first (the exact reverse)."""
    return (job.fulfillment, -job.priority, job.submitted, job.name)


def step(draft):
    """Decide one change on ``draft`` (first that applies: room for a service's pending
    pods, a shrink over the load line, a queued job's start, a growth); whether any."""
    return (make_room_for_service(draft, grow_key) or _shrink_over_line(draft)
            or _admit_next(draft) or _grow(draft))


def _line(draft):
    return draft.config.max_load * draft.total_cpu()


def _shrink_over_line(draft):
    requested, line = draft.requested_cpu(), _line(draft)
    if requested <= line + 1e-9:
        return False
    total = draft.total_cpu()
    reason = f"shrink: requests {requested / total:.2f} > {draft.config.max_load:.2f}"
    for job in sorted(draft.shrinkable(), key=grow_key, reverse=True):
        if draft.remove(job.name, busiest(job.placement), reason):
            return True
    return False


def _queue(draft):
    return sorted(draft.pending(), key=lambda j: (j.submitted, j.name))


def _admit_next(draft):
    for job in _queue(draft):
        if admit(draft, job, lambda d: d.shrinkable(), grow_key,
                 f"make room for job {job.name}"):
            return True
    return False


def _grow(draft):
    if any(could_admit(draft, job, lambda d: d.shrinkable(by_choice=False))
           for job in _queue(draft)):
        return False
    requested, line = draft.requested_cpu(), _line(draft)
    for job in sorted(draft.growable(), key=grow_key):
        if requested + job.worker.cpu > line + 1e-9:
            continue
        node = most_free(draft.room, job.worker)
        reason = f"grow: least fulfilled ({job.fulfillment:.2f})"
        if node is not None and draft.add(job.name, node, reason):
            return True
    return False
