"""The autoscaler's shortcuts decide exactly what the long way decides: the one-pass best
fit of ``reserve`` against placing pod by pod, and the room-making and admission bounds
(``room._alone``, ``room._quiet``) against trials on the draft, over the random states of
the property tests and a simulated service going up and down beside elastic jobs."""
import random

import pytest
from test_autoscaler_properties import random_state

from skiff.cloud.autoscaler import (ClusterState, Config, Job, Node, Resources, Service, plan,
                                    room)
from skiff.cloud.autoscaler.placement import reserve
from skiff.cloud.simulator import Simulation, edl, policy_for, summarize

CONFIGS = [Config(policy="edl", cooldown=0.0), Config(policy="edl", cooldown=10.0),
           Config(policy="skiff", cooldown=0.0), Config(policy="skiff", cooldown=10.0)]


def reserve_pod_by_pod(services, free):
    """``reserve`` as specified: each pod on the fitting node with the least free CPU."""
    room_, placed, unplaced = dict(free), {}, []
    for service in sorted(services, key=lambda s: (-s.priority, -s.pod.cpu, s.name)):
        placed[service.name] = 0
        for _ in range(max(0, service.demand - service.pods)):
            fitting = [n for n in room_ if service.pod.fits_in(room_[n])]
            if not fitting:
                unplaced.append(service)
                continue
            node = min(fitting, key=lambda n: (room_[n].cpu, n))
            room_[node] = room_[node] - service.pod
            placed[service.name] += 1
    return room_, placed, unplaced


def test_reserve_matches_pod_by_pod_placement():
    rng = random.Random(0)
    for _ in range(500):
        free = {f"n{i}": Resources(rng.choice([0.0, 1.5, 3.0, 8.0]), rng.choice([1.0, 6.0]))
                for i in range(rng.randint(1, 6))}
        services = [Service(f"s{i}", rng.randint(0, 9), rng.randint(0, 3),
                            Resources(rng.choice([0.5, 1.0, 2.5]), rng.choice([0.5, 2.0])),
                            priority=rng.choice([1, 2])) for i in range(rng.randint(0, 3))]
        assert reserve(services, free) == reserve_pod_by_pod(services, free)


def crowded_state(seed):
    """3-8 full nodes of 8 cores, elastic jobs of small workers spread over them, one
    service of big pods pending: making room takes several workers on some nodes."""
    rng = random.Random(seed)
    free = {f"n{i}": Resources(8.0, 32.0) for i in range(rng.randint(3, 8))}
    jobs = []
    for i in range(rng.randint(2, 6)):
        worker = Resources(rng.choice([0.5, 1.0, 2.0]), 1.0)
        placement = {}
        for _ in range(rng.randint(2, 24)):
            node = rng.choice(sorted(free))
            if worker.fits_in(free[node]):
                free[node] = free[node] - worker
                placement[node] = placement.get(node, 0) + 1
        workers = sum(placement.values())
        jobs.append(Job(f"j{i}", min(workers, rng.randint(1, 3)), workers + 4, worker,
                        workers=workers, placement=placement, priority=rng.randint(0, 1),
                        throughput={n: 10.0 * n ** rng.choice([1.0, 0.8, 0.5])
                                    for n in range(1, workers + 5)}))
    pod = Resources(rng.choice([2.5, 4.0, 6.0]), 2.0)
    service = Service("web", rng.randint(1, 6), 0, pod)
    return ClusterState(100.0, tuple(Node(n, Resources(8.0, 32.0), free[n]) for n in free),
                        tuple(jobs), (service,))


@pytest.fixture
def long_way(monkeypatch):
    """Turns the shortcuts off for the rest of the test."""
    def off():
        monkeypatch.setattr(room, "_alone", lambda draft, service: False)
        monkeypatch.setattr(room, "_quiet", lambda draft: False)
    return off


@pytest.mark.parametrize("config", CONFIGS, ids=repr)
def test_random_states_plan_the_same_either_way(config, long_way):
    states = [random_state(seed) for seed in range(300)]
    states += [crowded_state(seed) for seed in range(200)]
    short = [plan(s, config) for s in states]
    long_way()
    assert [plan(s, config) for s in states] == short


@pytest.mark.parametrize("policy", ["edl", "skiff"])
def test_a_service_beside_elastic_jobs_runs_the_same_either_way(policy, long_way):
    def run():
        nodes, jobs, services, horizon = edl.nginx_case(True, nodes=24, jobs=4, pods=72)
        return summarize(Simulation(nodes, jobs, services, policy=policy_for(policy, 5.0),
                                    horizon=horizon).run())
    short = run()
    long_way()
    assert run() == short
