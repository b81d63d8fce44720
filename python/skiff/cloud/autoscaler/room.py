"""Making room by shrinking elastic jobs (never below their minimum, never a static job):
for a service's pending pods, and for a queued job's start. Both policies use these with
their own ``shrink_key``: the job with the largest key gives up a worker first."""

import dataclasses

from .placement import gang
from .state import Resources

__all__ = ["make_room_for_service", "admit", "could_admit"]


def make_room_for_service(draft, shrink_key):
    """Give one pending service pod a place if shrinking can: on the node that needs the
    fewest workers removed (ties by name), remove workers there, largest ``shrink_key``
    first, cooling jobs included. Answers whether anything changed."""
    for service in dict.fromkeys(draft.unplaced_pods):
        alone = _alone(draft, service)
        best = None
        for node in draft.free:
            if alone:
                removed = _removals_alone(draft, service, node, shrink_key)
            else:
                snapshot = draft.snapshot()
                removed = _free_for_pod(draft, service, node, shrink_key)
                draft.restore(snapshot)
            if removed is not None and (best is None or removed < best[0]):
                best = (removed, node)
        if best is not None:
            _free_for_pod(draft, service, best[1], shrink_key)
            return True
    return False


def _alone(draft, service):
    """Whether ``service`` is the only one with pending pods: then the expected places of
    its pods on a node depend on that node's free resources alone (``reserve``)."""
    return all(s.name == service.name or s.demand <= s.pods for s in draft.services)


def _removals_alone(draft, service, node, shrink_key):
    """What ``_free_for_pod`` answers for ``node`` when ``service`` is alone (no trial on
    the draft): the workers removed, largest ``shrink_key`` first, until one more pod fits
    on ``node`` beside those already expected there, or None."""
    free, jobs, removed = draft.free[node], {}, 0
    before = _pods_in(service.pod, free)
    while _pods_in(service.pod, free) == before:
        victims = [jobs.get(j.name, j) for j in draft.shrinkable(by_choice=False)]
        victims = [j for j in victims if j.workers > j.min_workers and j.placement.get(node)]
        if not victims:
            return None
        victim = max(victims, key=shrink_key)
        placement = dict(victim.placement)
        placement[node] -= 1
        jobs[victim.name] = dataclasses.replace(victim, workers=victim.workers - 1,
                                                placement=placement)
        free = free - victim.worker.times(-1)
        removed += 1
    return removed


def _pods_in(pod, free):
    """How many ``pod`` fit in ``free`` one after another (as ``reserve`` places them)."""
    count = 0
    while pod.fits_in(free):
        free, count = free - pod, count + 1
    return count


def _free_for_pod(draft, service, node, shrink_key):
    """Remove workers on ``node`` until one more pod of ``service`` has a place; the number
    removed, or None when the node's elastic workers above their minimum are not enough."""
    wanted = draft.placed_pods[service.name] + 1
    removed = 0
    while draft.placed_pods[service.name] < wanted:
        victims = [j for j in draft.shrinkable(by_choice=False) if j.placement.get(node)]
        if not victims:
            return None
        victim = max(victims, key=shrink_key)
        draft.remove(victim.name, node, f"make room for service {service.name}",
                     checked=False)
        removed += 1
    return removed


def admit(draft, job, victims, shrink_key, reason):
    """Start pending ``job`` at its minimum (all at once, placed with ``gang``), first
    shrinking jobs from ``victims(draft)`` (largest ``shrink_key`` first) on nodes where
    that makes room for its workers. All or nothing: answers whether it started."""
    if _quiet(draft) and not _could_fit(draft, victims(draft), job):
        return False
    snapshot = draft.snapshot()
    while True:
        placement = gang(draft.room, job.worker, job.min_workers)
        if placement is not None:
            if draft.admit(job.name, placement, "admit"):
                return True
            break
        if not _shrink_one(draft, job, victims(draft), shrink_key, reason):
            break
    draft.restore(snapshot)
    return False


def could_admit(draft, job, victims):
    """Whether pending ``job`` would start if every job in ``victims(draft)`` were at its
    minimum (cooldowns aside): while so, no running job grows (the queue comes first)."""
    if _quiet(draft):
        return gang(_spared(draft, victims(draft), False), job.worker,
                    job.min_workers) is not None
    snapshot = draft.snapshot()
    for victim in victims(draft):
        for node, n in victim.placement.items():
            for _ in range(min(n, draft.jobs[victim.name].workers - victim.min_workers)):
                draft.remove(victim.name, node, "", checked=False)
    fits = gang(draft.room, job.worker, job.min_workers) is not None
    draft.restore(snapshot)
    return fits


def _quiet(draft):
    """Whether no service has pending pods: then ``room`` is ``free``."""
    return all(s.demand <= s.pods for s in draft.services)


def _spared(draft, victims, every_node):
    """Free resources once ``victims`` are at their minimum, their workers removed node by
    node in placement order as ``could_admit`` does; ``every_node``: an upper bound that
    frees up to (workers - min) on each node."""
    free = dict(draft.free)
    for victim in victims:
        spare = victim.workers - victim.min_workers
        for node, n in victim.placement.items():
            k = min(n, spare)
            for _ in range(k):
                free[node] = free[node] - victim.worker.times(-1)
            if not every_node:
                spare -= k
    return free


def _could_fit(draft, victims, job):
    """False when ``job``'s minimum cannot fit however ``victims`` shrink: not in the free
    resources with all their spare workers added up, nor node by node with each node given
    up to all of a victim's spare workers there (two bounds that cheaply rule it out)."""
    total = sum(draft.free.values(), Resources())
    for victim in victims:
        total = total + victim.worker.times(victim.workers - victim.min_workers)
    if not job.worker.times(job.min_workers).fits_in(total, slack=1e-6):
        return False
    spared = _spared(draft, victims, True)
    return sum(job.worker.count_in(f) for f in spared.values()) >= job.min_workers


def _shrink_one(draft, job, victims, shrink_key, reason):
    """Remove one worker of the first victim (largest ``shrink_key``) that has one on a
    node where removing all victims' spare workers would fit more of ``job``'s workers;
    from its node with the most of its workers there (ties by name)."""
    helpful = []
    for node, room in draft.room.items():
        spare = room
        for victim in victims:
            spare = spare + victim.worker.times(
                min(victim.placement.get(node, 0), victim.workers - victim.min_workers))
        if job.worker.count_in(spare) > job.worker.count_in(room):
            helpful.append(node)
    for victim in sorted(victims, key=shrink_key, reverse=True):
        nodes = [n for n in helpful if victim.placement.get(n)]
        for node in sorted(nodes, key=lambda n: (-victim.placement[n], n)):
            if draft.remove(victim.name, node, reason):
                return True
    return False
