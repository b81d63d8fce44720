"""Where a gang of workers goes: on the fewest nodes (those with the most room first)."""

from ..autoscaler.state import Action

__all__ = ["packed", "admit_packed"]


def packed(free, worker, count):
    """{node: workers} for ``count`` workers of size ``worker`` in ``free`` {node: Resources},
    filling the nodes with the most room first (ties: node order); None if they do not fit."""
    room = [(worker.count_in(have), i, name) for i, (name, have) in enumerate(free.items())]
    room.sort(key=lambda x: (-x[0], x[1]))
    place, left = {}, count
    for fits, _, name in room:
        if left == 0 or fits == 0:
            break
        take = min(fits, left)
        place[name], left = take, left - take
    return place if left == 0 else None


def admit_packed(free, job, reason):
    """The Action starting pending ``job`` whole (its minimum, ``packed``), taking its room
    from ``free`` (changed in place); None when it does not fit."""
    place = packed(free, job.worker, job.min_workers)
    if place is None:
        return None
    for node, count in place.items():
        free[node] = free[node] - job.worker.times(count)
    return Action(job.name, job.min_workers, placement=place, reason=reason)
