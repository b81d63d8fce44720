"""Making room by shrinking elastic jobs (never below their minimum, never a static job):
for a service's pending pods, and for a queued job's start. Both policies use these with
their own ``shrink_key``: the job with the largest key gives up a worker first."""

from .placement import gang

__all__ = ["make_room_for_service", "admit", "could_admit"]


def make_room_for_service(draft, shrink_key):
    """Give one pending service pod a place if shrinking can: on the node that needs the
    fewest workers removed (ties by name), remove workers there, largest ``shrink_key``
    first, cooling jobs included. Answers whether anything changed."""
    for service in dict.fromkeys(draft.unplaced_pods):
        best = None
        for node in draft.free:
            snapshot = draft.snapshot()
            removed = _free_for_pod(draft, service, node, shrink_key)
            draft.restore(snapshot)
            if removed is not None and (best is None or removed < best[0]):
                best = (removed, node)
        if best is not None:
            _free_for_pod(draft, service, best[1], shrink_key)
            return True
    return False


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
    snapshot = draft.snapshot()
    for victim in victims(draft):
        for node, n in victim.placement.items():
            for _ in range(min(n, draft.jobs[victim.name].workers - victim.min_workers)):
                draft.remove(victim.name, node, "", checked=False)
    fits = gang(draft.room, job.worker, job.min_workers) is not None
    draft.restore(snapshot)
    return fits


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
