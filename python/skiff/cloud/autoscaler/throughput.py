"""The skiff policy: queued jobs start first (by priority, then submission), preempting
spare workers of jobs of no higher priority; then each free worker slot goes where it adds
the most throughput, up to the whole cluster. Services come first, as in EDL."""

from .curve import efficiency
from .placement import most_free
from .room import admit, could_admit, make_room_for_service

__all__ = ["step", "grow_key", "shrink_key"]


def _round(x):
    return round(x, 9)  # measured curves give float noise; ties then fall to the next key


def grow_key(job):
    """Growth order, smallest first: higher priority, then the next worker's efficiency
    (``curve.efficiency``), then EDL's order (least fulfilled, earlier submitted, name)."""
    return (-job.priority, -_round(efficiency(job, job.workers)), job.fulfillment,
            job.submitted, job.name)


def shrink_key(job):
    """Shrink order, largest first: lower priority, then the least efficient last worker,
    then most fulfilled, later submitted, name (the reverse of growth)."""
    return (-job.priority, -_round(efficiency(job, job.workers - 1)), job.fulfillment,
            job.submitted, job.name)


def step(draft):
    """Decide one change on ``draft`` (first that applies: room for a service's pending
    pods, a queued job's start, a growth); whether any."""
    return make_room_for_service(draft, shrink_key) or _admit_next(draft) or _grow(draft)


def _queue(draft):
    return sorted(draft.pending(), key=lambda j: (-j.priority, j.submitted, j.name))


def _victims(job, by_choice):
    """Jobs whose spare workers may go to start ``job``: those of no higher priority."""
    return lambda draft: [v for v in draft.shrinkable(by_choice) if v.priority <= job.priority]


def _admit_next(draft):
    for job in _queue(draft):
        reason = f"preempt for job {job.name} (priority {job.priority})"
        if admit(draft, job, _victims(job, True), shrink_key, reason):
            return True
    return False


def _grow(draft):
    if any(could_admit(draft, job, _victims(job, False)) for job in _queue(draft)):
        return False
    candidates = [j for j in draft.growable() if efficiency(j, j.workers) > 1e-9]
    for job in sorted(candidates, key=grow_key):
        node = most_free(draft.room, job.worker)
        reason = f"grow: marginal throughput {efficiency(job, job.workers):.2f}"
        if node is not None and draft.add(job.name, node, reason):
            return True
    return False
