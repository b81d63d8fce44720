"""What the autoscaler reads and what it answers: a cluster's state as plain frozen values
(nodes with their free resources, elastic and static jobs, services and their demand) and
the scaling actions it decides. Every driver (the Kubernetes operator, the job service's
local backend, the simulator) builds a ``ClusterState`` from what it sees and carries out
the ``Action`` list that ``plan`` returns; the autoscaler never knows which one drives it."""
import dataclasses
import math
from typing import Mapping

__all__ = ["Resources", "Node", "Job", "Service", "ClusterState", "Action", "Config"]


@dataclasses.dataclass(frozen=True)
class Resources:
    """An amount of each resource: CPU cores, memory in GiB, GPUs."""

    cpu: float = 0.0
    memory: float = 0.0
    gpu: int = 0

    def __add__(self, other):
        return Resources(self.cpu + other.cpu, self.memory + other.memory,
                         self.gpu + other.gpu)

    def __sub__(self, other):
        return Resources(self.cpu - other.cpu, self.memory - other.memory,
                         self.gpu - other.gpu)

    def times(self, n):
        return Resources(self.cpu * n, self.memory * n, self.gpu * n)

    def fits_in(self, other, slack=1e-9):
        """Whether this amount fits in ``other`` (every resource)."""
        return (self.cpu <= other.cpu + slack and self.memory <= other.memory + slack
                and self.gpu <= other.gpu)

    def count_in(self, other):
        """How many of this amount fit in ``other``."""
        counts = [math.floor((have + 1e-9) / need)
                  for need, have in ((self.cpu, other.cpu), (self.memory, other.memory),
                                     (self.gpu, other.gpu)) if need > 0]
        return max(0, min(counts)) if counts else 0


@dataclasses.dataclass(frozen=True)
class Node:
    """A machine: what it has (``capacity``) and what nothing holds now (``free``)."""

    name: str
    capacity: Resources
    free: Resources


@dataclasses.dataclass(frozen=True)
class Job:
    """A training job. It runs between ``min_workers`` and ``max_workers`` workers when
    ``elastic``, else exactly ``min_workers`` (== ``max_workers``); ``workers`` run now
    (0: wholly pending, waiting for its minimum), placed as ``placement`` {node: count}.
    ``worker`` is what one worker asks for. ``throughput`` {workers: samples/s} is what the
    job was measured to do (the better policies use it; absent, more workers count as
    more throughput, linearly). ``submitted`` orders the queue; ``last_scaled`` is the time
    of the last action on it (decisions are rate-limited per job). ``attained``: the
    service it has had, in worker-seconds (a driver that fills it gets the skiff policy's
    least-attained-service queues, ``Config.thresholds``)."""

    name: str
    min_workers: int
    max_workers: int
    worker: Resources
    workers: int = 0
    placement: Mapping[str, int] = dataclasses.field(default_factory=dict)
    priority: int = 0
    elastic: bool = True
    throughput: Mapping[int, float] | None = None
    submitted: float = 0.0
    last_scaled: float = -math.inf
    attained: float = 0.0

    @property
    def fulfillment(self):
        """(workers - min) / (max - min): 0 at its minimum, 1 at its maximum (EDL)."""
        if self.max_workers == self.min_workers:
            return 1.0
        return (self.workers - self.min_workers) / (self.max_workers - self.min_workers)


@dataclasses.dataclass(frozen=True)
class Service:
    """Work that is not training (a web service under load): ``demand`` pods wanted now
    (its horizontal autoscaler's answer), ``pods`` placed, each asking for ``pod``. The
    autoscaler never scales a service: it makes room for its pending pods by shrinking
    elastic jobs, and the cluster's scheduler places them."""

    name: str
    demand: int
    pods: int
    pod: Resources
    priority: int = 1000


@dataclasses.dataclass(frozen=True)
class ClusterState:
    """What the autoscaler sees at time ``now``: the nodes, the training jobs (running and
    queued) and the services."""

    now: float
    nodes: tuple
    jobs: tuple
    services: tuple = ()

    def job(self, name):
        return next(j for j in self.jobs if j.name == name)

    def applied(self, actions):
        """This state once ``actions`` are carried out: jobs' workers and placement (and
        ``last_scaled`` = ``now``) and nodes' free resources change; services do not."""
        free = {n.name: n.free for n in self.nodes}
        jobs = {j.name: j for j in self.jobs}
        for action in actions:
            job = jobs[action.job]
            counts = dict(action.placement or {action.node: action.delta})
            placement = dict(job.placement)
            for node, n in counts.items():
                placement[node] = placement.get(node, 0) + n
                if placement[node] == 0:
                    del placement[node]
                free[node] = free[node] - job.worker.times(n)
            jobs[action.job] = dataclasses.replace(
                job, workers=job.workers + sum(counts.values()), placement=placement,
                last_scaled=self.now)
        nodes = tuple(dataclasses.replace(n, free=free[n.name]) for n in self.nodes)
        return dataclasses.replace(self, nodes=nodes,
                                   jobs=tuple(jobs[j.name] for j in self.jobs))


@dataclasses.dataclass(frozen=True)
class Action:
    """One worker of ``job`` added on ``node`` (``delta`` +1) or removed from it (-1); a
    pending job admitted at its minimum is ``delta`` = min_workers with ``placement``
    {node: count}; a whole job suspended (``Config.suspend``) is ``delta`` = -workers with
    ``placement`` {node: -count}. ``reason`` says why, for the logs and the job page."""

    job: str
    delta: int
    node: str | None = None
    placement: Mapping[str, int] | None = None
    reason: str = ""


@dataclasses.dataclass(frozen=True)
class Config:
    """The autoscaler's knobs. ``policy``: "edl" (EDL's published policy, exactly) or
    "skiff" (marginal throughput, admission first, priorities). ``max_load``: the share
    of the cluster's CPU that requests may reach before jobs shrink. ``cooldown``:
    seconds between two decisions on one job (a re-formed world costs about a second).
    Skiff policy only: ``thresholds``, the attained service (worker-seconds) where each
    of its queues ends; ``suspend``, whether it may preempt a whole elastic job of a later
    queue to start a queued one (for drivers that checkpoint and requeue such a job)."""

    policy: str = "skiff"
    max_load: float = 0.97
    cooldown: float = 10.0
    interval: float = 5.0
    thresholds: tuple = ()
    suspend: bool = False
