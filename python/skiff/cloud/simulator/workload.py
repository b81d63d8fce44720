"""What a simulated cluster runs: training jobs (work to do, a throughput per worker count
and placement) and services (pods wanted over time), and the nodes they share."""
import bisect
import dataclasses
from typing import Callable, Mapping, Sequence

from ..autoscaler.state import Resources

__all__ = ["NodeSpec", "JobSpec", "ServiceSpec", "linear_rate"]


@dataclasses.dataclass(frozen=True)
class NodeSpec:
    """A machine of the simulated cluster and what it has."""

    name: str
    capacity: Resources


@dataclasses.dataclass(frozen=True)
class JobSpec:
    """A training job submitted at ``arrival`` with ``work`` units to do (samples or
    steps). ``rate(workers, placement)`` is the units per second it does on that many
    workers placed as {node: count}; ``throughput`` is what the autoscaler is told
    ({workers: units/s}, a packed placement). ``startup``: seconds from its start to its
    first step (processes starting, data loading), holding its workers."""

    name: str
    arrival: float
    work: float
    min_workers: int
    max_workers: int
    worker: Resources
    rate: Callable[[int, Mapping[str, int]], float]
    throughput: Mapping[int, float] | None = None
    elastic: bool = True
    priority: int = 0
    startup: float = 0.0


@dataclasses.dataclass(frozen=True)
class ServiceSpec:
    """A service wanting ``demand[i]`` pods from time ``times[i]`` on (a step curve;
    ``times[0]`` is 0), each pod asking for ``pod``."""

    name: str
    pod: Resources
    times: Sequence[float]
    demand: Sequence[int]
    priority: int = 1000

    def demand_at(self, t):
        """The pods wanted at time ``t``."""
        return self.demand[max(0, bisect.bisect_right(self.times, t) - 1)]


def linear_rate(per_worker):
    """A rate function: ``per_worker`` units/s for each worker, wherever they run."""
    return lambda workers, placement: per_worker * workers
