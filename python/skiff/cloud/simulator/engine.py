"""The discrete-event engine: jobs arrive, train at their current throughput, pause for a
world's re-form on every change of their workers and finish; services' demand steps; every
``interval`` seconds and on each arrival and finish the policy sees a ``ClusterState`` and
its actions are checked and carried out. Events are ordered by (time, sequence number), so
a run is a pure function of its inputs."""
import dataclasses
import heapq
import math

from ..autoscaler.state import Action, ClusterState, Job, Node, Resources, Service

__all__ = ["Simulation", "SimulationError", "Run"]


class SimulationError(RuntimeError):
    """A policy answered an action the cluster cannot carry out (a bug in the policy)."""


@dataclasses.dataclass
class JobRun:
    """What happened to one job: its workers now and its history."""

    spec: object
    workers: int = 0
    placement: dict = dataclasses.field(default_factory=dict)
    progress: float = 0.0
    rate: float = 0.0
    since: float = 0.0          # progress accrues at ``rate`` from here (after a re-form)
    version: int = 0            # a finish event of an older version is stale
    started: float | None = None
    finished: float | None = None
    last_scaled: float = -math.inf
    attained: float = 0.0       # worker-seconds held so far
    scalings: int = 0
    preemptions: int = 0
    failed: bool = False


@dataclasses.dataclass
class ServiceRun:
    spec: object
    demand: int = 0
    placement: dict = dataclasses.field(default_factory=dict)

    @property
    def pods(self):
        return sum(self.placement.values())


@dataclasses.dataclass
class Run:
    """A finished simulation: the jobs' and services' histories and a timeline of
    (time, used Resources, services' demand, services' pods) after each event."""

    end: float
    nodes: list
    jobs: dict
    services: dict
    timeline: list
    admissions: int
    scalings: int
    preemptions: int
    plans: int
    unmet_pod_seconds: float


class Simulation:
    """One simulated cluster. ``policy(state) -> [Action]``; ``reform``: seconds a job
    stops when its world re-forms; ``horizon``: stop then (else when every job is done)."""

    def __init__(self, nodes, jobs, services=(), *, policy, interval=5.0, reform=1.0,
                 horizon=None, plan_on_events=True, time_limit=1e8):
        self.nodes = list(nodes)
        self.capacity = {n.name: n.capacity for n in self.nodes}
        self.free = dict(self.capacity)
        self.jobs = {j.name: JobRun(j) for j in jobs}
        if len(self.jobs) != len(jobs):
            raise ValueError("job names must be unique")
        self.services = {s.name: ServiceRun(s) for s in services}
        self.policy, self.interval, self.reform = policy, interval, reform
        self.horizon, self.plan_on_events = horizon, plan_on_events
        self.time_limit = time_limit if horizon is None else horizon
        self.now, self._seq, self._heap = 0.0, 0, []
        self.active = {}  # arrived, unfinished jobs in arrival order
        self.used = Resources()
        self.timeline = []
        self.admissions = self.scalings = self.preemptions = self.plans = 0
        self.unmet = 0.0
        self._unfinished = len(self.jobs)

    # -- events ---------------------------------------------------------------------------
    def _push(self, t, kind, *data):
        self._seq += 1
        heapq.heappush(self._heap, (t, self._seq, kind, data))

    def run(self):
        """Runs to the horizon (or until every job is done) and returns the ``Run``."""
        for j in sorted(self.jobs.values(), key=lambda r: (r.spec.arrival, r.spec.name)):
            self._push(j.spec.arrival, "arrive", j.spec.name)
        for s in self.services.values():
            for t, d in zip(s.spec.times, s.spec.demand):
                self._push(t, "demand", s.spec.name, d)
        self._push(0.0, "tick")
        self._record()
        while self._heap:
            t, _, kind, data = heapq.heappop(self._heap)
            if self.horizon is not None and t > self.horizon:
                break
            if t > self.time_limit:
                raise SimulationError(f"jobs still unfinished at {self.time_limit:g} s")
            self._account(t)
            if kind == "finish":
                if not self._finish(*data):
                    continue
            elif kind == "arrive":
                self._arrive(data[0])
            elif kind == "demand":
                self._set_demand(*data)
            elif kind == "tick":
                if self._unfinished or self.horizon is not None:
                    self._push(t + self.interval, "tick")
            self._place_pods()
            if kind == "tick" or (self.plan_on_events and kind in ("arrive", "finish")):
                self._apply(self.policy(self.state()))
                self._place_pods()
            self._record()
            if not self._unfinished and self.horizon is None:
                break
        end = self.now if self.horizon is None else self.horizon
        self._account(end)
        return Run(end, self.nodes, self.jobs, self.services, self.timeline,
                   self.admissions, self.scalings, self.preemptions, self.plans, self.unmet)

    def _account(self, t):
        """Moves the clock to ``t``, adding the services' unmet demand and the jobs' attained
        service since the last event."""
        unmet = sum(max(0, s.demand - s.pods) for s in self.services.values())
        self.unmet += unmet * (t - self.now)
        for r in self.active.values():
            r.attained += r.workers * (t - self.now)
        self.now = t

    def _record(self):
        demand = sum(s.demand for s in self.services.values())
        pods = sum(s.pods for s in self.services.values())
        entry = (self.now, self.used, demand, pods)
        if self.timeline and self.timeline[-1][0] == self.now:
            self.timeline[-1] = entry
        else:
            self.timeline.append(entry)

    # -- the cluster state the policy sees ------------------------------------------------
    def state(self):
        """The ``ClusterState`` now (arrived, unfinished jobs in arrival order)."""
        self.plans += 1
        nodes = tuple(Node(n.name, n.capacity, self.free[n.name]) for n in self.nodes)
        jobs = tuple(Job(name=r.spec.name, min_workers=r.spec.min_workers,
                         max_workers=r.spec.max_workers, worker=r.spec.worker,
                         workers=r.workers, placement=dict(r.placement),
                         priority=r.spec.priority, elastic=r.spec.elastic,
                         throughput=r.spec.throughput, submitted=r.spec.arrival,
                         last_scaled=r.last_scaled, attained=r.attained)
                     for r in self.active.values())
        services = tuple(Service(s.spec.name, s.demand, s.pods, s.spec.pod, s.spec.priority)
                         for s in self.services.values())
        return ClusterState(self.now, nodes, jobs, services)

    # -- jobs -----------------------------------------------------------------------------
    def _take(self, node, amount):
        if node not in self.free:
            raise SimulationError(f"no node {node!r}")
        if not amount.fits_in(self.free[node]):
            raise SimulationError(f"{amount} does not fit in node {node}'s free "
                                  f"{self.free[node]}")
        self.free[node] = self.free[node] - amount
        self.used = self.used + amount

    def _give(self, node, amount):
        self.free[node] = self.free[node] + amount
        self.used = self.used - amount

    def _apply(self, actions):
        changed, pauses = {}, {}
        for a in actions:
            if not isinstance(a, Action):
                raise SimulationError(f"not an Action: {a!r}")
            r = self.active.get(a.job)
            if r is None:
                raise SimulationError(f"action on a job that is not running or pending: {a}")
            spec = r.spec
            if r.workers == 0:
                place = dict(a.placement or {})
                if (a.delta != sum(place.values()) or not
                        spec.min_workers <= a.delta <= spec.max_workers
                        or any(c <= 0 for c in place.values())):
                    raise SimulationError(f"bad admission {a} of {spec.name} "
                                          f"({spec.min_workers}-{spec.max_workers} workers)")
                for node, count in sorted(place.items()):
                    self._take(node, spec.worker.times(count))
                r.placement = place
                r.workers = a.delta
                self.admissions += 1
                if r.started is None:
                    r.started = self.now
                pauses[a.job] = spec.startup  # (its processes start, or start again)
            elif a.delta == -r.workers and a.placement is not None and (
                    dict(a.placement) == r.placement
                    or {n: -c for n, c in a.placement.items()} == r.placement):
                for node, count in r.placement.items():
                    self._give(node, spec.worker.times(count))
                r.placement, r.workers = {}, 0
                r.preemptions += 1
                self.preemptions += 1
            elif a.delta in (1, -1) and a.node is not None:
                if a.delta == 1:
                    if not spec.elastic or r.workers + 1 > spec.max_workers:
                        raise SimulationError(f"cannot grow {spec.name} past "
                                              f"{r.workers} workers: {a}")
                    self._take(a.node, spec.worker)
                    r.placement[a.node] = r.placement.get(a.node, 0) + 1
                else:
                    if (not spec.elastic or r.workers - 1 < spec.min_workers
                            or r.placement.get(a.node, 0) < 1):
                        raise SimulationError(f"cannot shrink {spec.name} "
                                              f"({r.workers} workers, {r.placement}): {a}")
                    self._give(a.node, spec.worker)
                    r.placement[a.node] -= 1
                    if not r.placement[a.node]:
                        del r.placement[a.node]
                r.workers += a.delta
                r.scalings += 1
                self.scalings += 1
            else:
                raise SimulationError(f"an action the cluster cannot carry out: {a}")
            r.last_scaled = self.now
            changed[a.job] = r
        for name, r in changed.items():
            self._reconfigure(r, max(self.reform, pauses.get(name, 0.0)))

    def _advance(self, r):
        if r.rate > 0 and self.now > r.since:
            r.progress += r.rate * (self.now - r.since)
        r.since = max(r.since, self.now)

    def _reconfigure(self, r, pause):
        """The job's workers changed: it stops for ``pause`` seconds (a re-form; its
        startup when it was started), then runs at its new rate."""
        self._advance(r)
        r.version += 1
        r.rate = r.spec.rate(r.workers, r.placement) if r.workers else 0.0
        r.since = self.now + pause
        if r.rate > 0:
            left = max(0.0, r.spec.work - r.progress)
            self._push(r.since + left / r.rate, "finish", r.spec.name, r.version)

    def _arrive(self, name):
        """A job arrives; one whose minimum cannot fit in the empty cluster fails."""
        r = self.jobs[name]
        room = sum(r.spec.worker.count_in(n.capacity) for n in self.nodes)
        if room < r.spec.min_workers:
            r.failed = True
            self._unfinished -= 1
        else:
            self.active[name] = r

    def _finish(self, name, version):
        r = self.jobs[name]
        if version != r.version or r.finished is not None:
            return False
        r.progress, r.finished = r.spec.work, self.now
        for node, count in r.placement.items():
            self._give(node, r.spec.worker.times(count))
        r.placement, r.workers, r.rate = {}, 0, 0.0
        del self.active[name]
        self._unfinished -= 1
        return True

    # -- services -------------------------------------------------------------------------
    def _set_demand(self, name, demand):
        s = self.services[name]
        s.demand = demand
        for node in reversed(list(s.placement)):  # the last placed go first
            while s.pods > demand and s.placement.get(node):
                s.placement[node] -= 1
                self._give(node, s.spec.pod)
            if not s.placement.get(node):
                s.placement.pop(node, None)

    def _place_pods(self):
        """Places the services' pending pods first-fit (highest priority first)."""
        for s in sorted(self.services.values(), key=lambda s: -s.spec.priority):
            if s.pods >= s.demand:
                continue
            for n in self.nodes:
                fit = min(s.demand - s.pods, s.spec.pod.count_in(self.free[n.name]))
                if fit > 0:
                    self._take(n.name, s.spec.pod.times(fit))
                    s.placement[n.name] = s.placement.get(n.name, 0) + fit
                if s.pods >= s.demand:
                    break
