"""The working copy ``plan`` decides on: a ClusterState that the actions decided so far
have been applied to (nodes' free resources, jobs' workers and placement), with the room
the services' pending pods are expected to take set aside."""
import dataclasses

from .placement import reserve
from .state import Action

__all__ = ["Draft"]


class Draft:
    """A ClusterState being changed one action at a time. ``room`` is ``free`` less the
    pending service pods' expected places; policies place workers in ``room`` only."""

    def __init__(self, state, config):
        self.now = state.now
        self.config = config
        nodes = sorted(state.nodes, key=lambda n: n.name)
        self.capacity = {n.name: n.capacity for n in nodes}
        self.free = {n.name: n.free for n in nodes}
        self.jobs = {j.name: j for j in sorted(state.jobs, key=lambda j: j.name)}
        self.services = tuple(sorted(state.services, key=lambda s: s.name))
        self.actions = []
        self._reserve()

    def _reserve(self):
        self.room, self.placed_pods, self.unplaced_pods = reserve(self.services, self.free)

    def snapshot(self):
        """Everything a trial change touches, for ``restore``."""
        return (dict(self.free), dict(self.jobs), len(self.actions), self.room,
                self.placed_pods, self.unplaced_pods)

    def restore(self, snapshot):
        """Undo every change made since ``snapshot``."""
        free, jobs, n_actions, self.room, self.placed_pods, self.unplaced_pods = snapshot
        self.free, self.jobs = dict(free), dict(jobs)
        del self.actions[n_actions:]

    # What the policies ask of a job.

    def cooling(self, job):
        """Whether ``job`` was scaled less than ``config.cooldown`` seconds ago."""
        return self.now - job.last_scaled < self.config.cooldown

    def pending(self):
        """Jobs waiting to start (no worker yet), by name."""
        return [j for j in self.jobs.values() if j.workers == 0 and j.min_workers > 0]

    def running(self):
        """Jobs that have started, by name."""
        return [j for j in self.jobs.values() if not (j.workers == 0 and j.min_workers > 0)]

    def shrinkable(self, by_choice=True):
        """Running elastic jobs above their minimum (and, ``by_choice``, not cooling)."""
        return [j for j in self.running() if j.elastic and j.workers > j.min_workers
                and not (by_choice and self.cooling(j))]

    def growable(self):
        """Running elastic jobs below their maximum, not cooling."""
        return [j for j in self.running() if j.elastic and j.workers < j.max_workers
                and not self.cooling(j)]

    def requested_cpu(self):
        """Every job's workers' CPU plus every service's demand's CPU (EDL's requests)."""
        return (sum(j.workers * j.worker.cpu for j in self.jobs.values())
                + sum(s.demand * s.pod.cpu for s in self.services))

    def total_cpu(self):
        return sum(c.cpu for c in self.capacity.values())

    # Changes. A change made by choice (``checked``) is undone, and answers False, when it
    # would leave fewer of some service's pending pods a place: services come first.

    def add(self, name, node, reason):
        """One more worker of job ``name`` on ``node``."""
        return self._change(name, {node: 1}, Action(name, 1, node=node, reason=reason), True)

    def remove(self, name, node, reason, checked=True):
        """One worker of job ``name`` less on ``node``."""
        return self._change(name, {node: -1}, Action(name, -1, node=node, reason=reason),
                            checked)

    def admit(self, name, placement, reason):
        """Pending job ``name`` started with its minimum, as {node: workers}."""
        action = Action(name, sum(placement.values()), placement=dict(placement),
                        reason=reason)
        return self._change(name, placement, action, True)

    def suspend(self, name, reason):
        """Running job ``name`` preempted whole (back to the queue), by choice."""
        counts = {node: -n for node, n in self.jobs[name].placement.items()}
        action = Action(name, sum(counts.values()), placement=counts, reason=reason)
        return self._change(name, counts, action, True)

    def _change(self, name, counts, action, checked):
        snapshot = self.snapshot()
        job = self.jobs[name]
        placement = dict(job.placement)
        for node, n in counts.items():
            placement[node] = placement.get(node, 0) + n
            if placement[node] == 0:
                del placement[node]
            self.free[node] = self.free[node] - job.worker.times(n)
        self.jobs[name] = dataclasses.replace(
            job, workers=job.workers + sum(counts.values()), placement=placement)
        before = self.placed_pods
        self._reserve()
        if checked and any(self.placed_pods[s] < n for s, n in before.items()):
            self.restore(snapshot)
            return False
        self.actions.append(action)
        return True
