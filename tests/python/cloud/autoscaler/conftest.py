"""Building small cluster states for the autoscaler's tests: nodes by CPU, jobs placed on
them, each node's free resources computed from what is placed."""
import pytest

from skiff.cloud.autoscaler import ClusterState, Job, Node, Resources


def build_cluster(nodes, jobs=(), services=(), used=None, now=100.0):
    """A ClusterState of ``nodes`` {name: cpu} (64 GiB each), ``jobs`` and ``services``;
    a node's free = capacity - its jobs' workers - ``used`` {node: cpu} by anything else."""
    used = used or {}
    free = {}
    for name, cpu in nodes.items():
        left = Resources(cpu, 64.0) - Resources(used.get(name, 0.0))
        for job in jobs:
            left = left - job.worker.times(job.placement.get(name, 0))
        free[name] = left
    return ClusterState(
        now, tuple(Node(name, Resources(cpu, 64.0), free[name]) for name, cpu in nodes.items()),
        tuple(jobs), tuple(services))


def build_job(name, min_workers, max_workers, placement=None, cpu=1.0, **fields):
    """A job of ``cpu``-core workers placed as ``placement`` {node: workers}."""
    placement = placement or {}
    return Job(name, min_workers, max_workers, Resources(cpu, 1.0),
               workers=sum(placement.values()), placement=placement, **fields)


@pytest.fixture
def cluster():
    return build_cluster


@pytest.fixture
def job():
    return build_job
