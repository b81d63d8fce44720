"""The cluster without an autoscaler: jobs start whole (all their workers at once) in
arrival order when they fit, a later job that fits going ahead of an earlier one that does
not, and keep their workers until they finish."""
from .placement import admit_packed

__all__ = ["fifo"]


def fifo(state):
    """Admission actions for the pending jobs that fit now, in arrival order."""
    free = {n.name: n.free for n in state.nodes}
    actions = []
    for job in sorted(state.jobs, key=lambda j: (j.submitted, j.name)):
        if job.workers:
            continue
        action = admit_packed(free, job, "fits whole")
        if action is not None:
            actions.append(action)
    return actions
