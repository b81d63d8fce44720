"""Both policies over many random clusters (seeded): bounds, free resources, services'
demand, determinism, settling, and (skiff) the queue before growth."""
import dataclasses
import math
import random

import pytest

from skiff.cloud.autoscaler import (Action, ClusterState, Config, Job, Node, Resources, Service,
                                    plan)
from skiff.cloud.autoscaler.curve import efficiency
from skiff.cloud.autoscaler.placement import gang, reserve

SEEDS = range(300)


def random_state(seed):
    """2-4 nodes (some with GPUs), 1-7 jobs placed where they fit or queued, 0-2 services
    with pods placed and some pending; CPU in halves so sums are exact."""
    rng = random.Random(seed)
    nodes = {f"n{i}": Resources(rng.choice([4.0, 8.0, 16.0]), 32.0, rng.choice([0, 0, 2]))
             for i in range(rng.randint(2, 4))}
    free = {name: cap - Resources(rng.choice([0.0, 0.5, 1.0]), 1.0) for name, cap in
            nodes.items()}
    services = []
    for i in range(rng.randint(0, 2)):
        pod = Resources(rng.choice([0.5, 1.0, 2.0, 3.0]), 1.0)
        pods = 0
        for _ in range(rng.randint(0, 3)):
            name = rng.choice(sorted(free))
            if pod.fits_in(free[name]):
                free[name] = free[name] - pod
                pods += 1
        services.append(Service(f"s{i}", pods + rng.randint(0, 3), pods, pod,
                                priority=rng.choice([1000, 500])))
    jobs = []
    for i in range(rng.randint(1, 7)):
        worker = Resources(rng.choice([0.5, 1.0, 2.0, 4.0]), 2.0, rng.choice([0, 0, 0, 1]))
        low = rng.randint(1, 3)
        elastic = rng.random() < 0.8
        high = low + rng.randint(0, 5) if elastic else low
        throughput = None
        if rng.random() < 0.5:
            rates, total = {}, 0.0
            for n in range(1, rng.randint(1, high + 2) + 1):
                total += rng.choice([10.0, 8.0, 5.0, 1.0, 0.0]) * (0.9 ** n)
                rates[n] = total
            throughput = rates
        placement = {}
        if rng.random() < 0.7:
            for _ in range(rng.randint(low, high)):
                name = rng.choice(sorted(free))
                if worker.fits_in(free[name]):
                    free[name] = free[name] - worker
                    placement[name] = placement.get(name, 0) + 1
            if sum(placement.values()) < low:  # could not start: give the room back, queue
                for name, n in placement.items():
                    free[name] = free[name] + worker.times(n)
                placement = {}
        jobs.append(Job(f"j{i}", low, high, worker, workers=sum(placement.values()),
                        placement=placement, priority=rng.randint(0, 2), elastic=elastic,
                        throughput=throughput, submitted=float(rng.randint(0, 50)),
                        last_scaled=rng.choice([-math.inf, 80.0, 95.0, 99.0])))
    return ClusterState(100.0, tuple(Node(n, nodes[n], free[n]) for n in nodes),
                        tuple(jobs), tuple(services))


def shuffled(state, seed):
    rng = random.Random(seed)
    return dataclasses.replace(state, nodes=tuple(rng.sample(state.nodes, len(state.nodes))),
                               jobs=tuple(rng.sample(state.jobs, len(state.jobs))),
                               services=tuple(rng.sample(state.services,
                                                         len(state.services))))


def carry_out(state, actions):
    """Apply actions one by one, checking each against the contract; the final state."""
    for action in actions:
        before = state.job(action.job)
        if action.placement is not None:
            assert before.workers == 0 and action.delta == before.min_workers
            assert sum(action.placement.values()) == action.delta
        else:
            assert before.elastic and before.workers > 0 and abs(action.delta) == 1
        assert action.reason
        state = state.applied([action])
        after = state.job(action.job)
        assert after.min_workers <= after.workers <= after.max_workers
        assert all(n >= 0 for n in after.placement.values())
        for node in state.nodes:
            assert Resources().fits_in(node.free), (action, node)
    return state


def spare(state, node):
    """What elastic jobs above their minimum hold on ``node``."""
    held = Resources()
    for job in state.jobs:
        if job.elastic and job.workers > job.min_workers:
            held = held + job.worker.times(
                min(job.placement.get(node, 0), job.workers - job.min_workers))
    return held


@pytest.mark.parametrize("config", [
    Config(policy="edl", cooldown=0.0), Config(policy="edl", cooldown=10.0),
    Config(policy="edl", cooldown=0.0, max_load=0.6), Config(policy="skiff", cooldown=0.0),
    Config(policy="skiff", cooldown=10.0)], ids=repr)
def test_random_clusters(config):
    policy = config.policy
    for seed in SEEDS:
        state = random_state(seed)
        actions = plan(state, config)
        assert plan(shuffled(state, seed), config) == actions, seed
        after = carry_out(state, actions)
        assert plan(after, config) == [], seed
        if policy == "skiff":
            kinds = ["admit" if a.placement else "grow" for a in actions if a.delta > 0]
            assert "grow" not in kinds or "admit" not in kinds[kinds.index("grow"):], seed
        check_services(after, seed)
        check_settled(after, config, seed)
        check_queue_blocks_growth(after, actions, policy, seed)


def check_services(state, seed):
    """A lone service's pending pods all fit, or no node's spare elastic workers could
    fit one more of them."""
    if len(state.services) != 1:
        return
    service = state.services[0]
    fits = sum(service.pod.count_in(n.free) for n in state.nodes)
    if fits < service.demand - service.pods:
        for node in state.nodes:
            assert (service.pod.count_in(node.free + spare(state, node.name))
                    == service.pod.count_in(node.free)), seed


def check_settled(state, config, seed):
    """Nothing left that the policy should have done."""
    room = reserve(state.services, {n.name: n.free for n in state.nodes})[0]
    cooled = [j for j in state.jobs if state.now - j.last_scaled >= config.cooldown]
    if config.policy == "skiff":
        for job in state.jobs:
            if job.workers == 0:
                assert gang(room, job.worker, job.min_workers) is None, seed
        for job in cooled:
            if job.elastic and 0 < job.workers < job.max_workers and efficiency(
                    job, job.workers) > 1e-9 and not any(j.workers == 0 for j in state.jobs):
                assert not any(job.worker.fits_in(r) for r in room.values()), seed
    else:
        total = sum(n.capacity.cpu for n in state.nodes)
        requested = (sum(j.workers * j.worker.cpu for j in state.jobs)
                     + sum(s.demand * s.pod.cpu for s in state.services))
        if requested > config.max_load * total + 1e-9:
            assert all(j.workers <= j.min_workers for j in cooled if j.elastic), seed


def check_queue_blocks_growth(state, actions, policy, seed):
    """While a queued job would start if the jobs it may shrink (any elastic job under
    edl; those of no higher priority under skiff) were at their minimum (pending pods
    expected in the freed room too), none grew."""
    for job in state.jobs:
        if job.workers:
            continue
        removals = []
        for other in state.jobs:
            if (other.elastic and other.workers > other.min_workers
                    and (policy == "edl" or other.priority <= job.priority)):
                nodes = [n for n, k in sorted(other.placement.items()) for _ in range(k)]
                removals += [Action(other.name, -1, n)
                             for n in nodes[:other.workers - other.min_workers]]
        shrunk = state.applied(removals)
        room = reserve(shrunk.services, {n.name: n.free for n in shrunk.nodes})[0]
        if sum(job.worker.count_in(r) for r in room.values()) >= job.min_workers:
            assert not any(a.reason.startswith("grow") for a in actions), seed
