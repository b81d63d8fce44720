"""The cluster without an autoscaler: jobs start whole (all their workers at once) in
arrival order when they fit, a later job that fits going ahead of an earlier one that does
not, and keep their workers until they finish."""
from ..autoscaler.state import Action
from .placement import packed

__all__ = ["fifo"]


def fifo(state):
    """Admission actions for the pending jobs that fit now, in arrival order."""
    free = {n.name: n.free for n in state.nodes}
    actions = []
    for job in sorted(state.jobs, key=lambda j: (j.submitted, j.name)):
        if job.workers:
            continue
        place = packed(free, job.worker, job.min_workers)
        if place is None:
            continue
        for name, count in place.items():
            free[name] = free[name] - job.worker.times(count)
        actions.append(Action(job.name, job.min_workers, placement=place,
                              reason="fits whole"))
    return actions
