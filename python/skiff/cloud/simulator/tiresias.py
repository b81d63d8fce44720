"""Tiresias' discretized two-dimensional least-attained-service scheduler (Gu et al., NSDI
2019), from the paper's description: a job keeps the workers its owner asked for; its
priority queue is set by its attained service (workers x seconds run) against the queues'
thresholds; queues are served in order, FIFO by submission inside a queue, skipping jobs
that do not fit; a running job that falls out of the chosen set is preempted; a job that
has waited ``promote`` times as long as it last ran goes back to the first queue."""
from ..autoscaler.state import Action, Resources
from .placement import admit_packed

__all__ = ["Tiresias"]


class Tiresias:
    """A stateful policy: ``policy(state) -> [Action]`` (admissions and preemptions).
    ``thresholds``: attained service (worker-seconds) where each queue ends."""

    def __init__(self, thresholds=(3600.0, 36000.0), promote=8.0):
        self.thresholds, self.promote = tuple(thresholds), promote
        self.attained, self.base = {}, {}
        self.ran_from, self.last_run, self.waiting_from = {}, {}, {}
        self.last_now = None

    def queue(self, name):
        """The job's queue index (0 first) by its service since its last promotion."""
        service = self.attained.get(name, 0.0) - self.base.get(name, 0.0)
        return sum(service >= t for t in self.thresholds)

    def _observe(self, state):
        dt = 0.0 if self.last_now is None else state.now - self.last_now
        self.last_now = state.now
        for job in state.jobs:
            self.attained[job.name] = self.attained.get(job.name, 0.0) + job.workers * dt
            self.waiting_from.setdefault(job.name, job.submitted)
            waited = state.now - self.waiting_from[job.name]
            ran = self.last_run.get(job.name)
            if not job.workers and ran and waited >= self.promote * ran:
                self.base[job.name] = self.attained[job.name]   # starving: back to queue 0
                self.last_run[job.name] = 0.0

    def __call__(self, state):
        self._observe(state)
        order = sorted(state.jobs, key=lambda j: (self.queue(j.name), j.submitted, j.name))
        room = sum((n.capacity for n in state.nodes), Resources())
        chosen = set()
        for job in order:
            need = job.worker.times(job.min_workers)
            if need.fits_in(room):
                chosen.add(job.name)
                room = room - need
        free = {n.name: n.free for n in state.nodes}
        actions = []
        for job in state.jobs:
            if job.workers and job.name not in chosen:
                for node, count in job.placement.items():
                    free[node] = free[node] + job.worker.times(count)
                actions.append(Action(job.name, -job.workers, placement=dict(job.placement),
                                      reason="preempted by a job of a higher queue"))
                self.last_run[job.name] = state.now - self.ran_from.get(job.name, state.now)
                self.waiting_from[job.name] = state.now
        for job in order:
            if job.workers or job.name not in chosen:
                continue
            action = admit_packed(free, job, f"queue {self.queue(job.name)}")
            if action is None:
                continue
            actions.append(action)
            self.ran_from[job.name] = state.now
        return actions
