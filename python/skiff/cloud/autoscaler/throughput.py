"""The skiff policy: jobs are ranked by class (priority, then least attained service in
``Config.thresholds``' queues); queued jobs start first, in class and submission order,
preempting spare workers of jobs of no higher class (and, with ``Config.suspend``, whole
elastic jobs of later queues); then each free worker slot goes where it adds the most
throughput, and a job takes spare workers from jobs of its priority in later queues.
Services come first, as in EDL."""

from .curve import efficiency
from .placement import most_free
from .room import admit, could_admit, make_room_for_service
from .state import Config

__all__ = ["step", "queue", "grow_key", "shrink_key"]


def _round(x):
    return round(x, 9)  # measured curves give float noise; ties then fall to the next key


def queue(job, config=Config()):
    """The job's least-attained-service queue: how many of ``config.thresholds`` its
    ``attained`` service has passed (0 without thresholds or service)."""
    return sum(job.attained >= t for t in config.thresholds)


def _class(job, config):
    """Smaller ranks first: higher priority, then a lower queue."""
    return (-job.priority, queue(job, config))


def grow_key(job, config=Config()):
    """Growth order, smallest first: class, then the next worker's efficiency
    (``curve.efficiency``), then EDL's order (least fulfilled, earlier submitted, name)."""
    return (_class(job, config), -_round(efficiency(job, job.workers)), job.fulfillment,
            job.submitted, job.name)


def shrink_key(job, config=Config()):
    """Shrink order, largest first: lower class, then the least efficient last worker,
    then most fulfilled, later submitted, name (the reverse of growth)."""
    return (_class(job, config), -_round(efficiency(job, job.workers - 1)), job.fulfillment,
            job.submitted, job.name)


def step(draft):
    """Decide one change on ``draft`` (first that applies: room for a service's pending
    pods, a queued job's start, a growth into free room or from a lower class); whether
    any."""
    return (make_room_for_service(draft, lambda j: shrink_key(j, draft.config))
            or _admit_next(draft) or _grow(draft))


def _queue(draft):
    return sorted(draft.pending(), key=lambda j: (_class(j, draft.config), j.submitted, j.name))


def _victims(job, by_choice):
    """Jobs whose spare workers may go to start ``job``: those of no higher class."""
    return lambda draft: [v for v in draft.shrinkable(by_choice)
                          if _class(v, draft.config) >= _class(job, draft.config)]


def _admit_next(draft):
    key = lambda j: shrink_key(j, draft.config)  # noqa: E731
    for job in _queue(draft):
        reason = f"preempt for job {job.name} (priority {job.priority})"
        if admit(draft, job, _victims(job, True), key, reason):
            return True
        if draft.config.suspend and _admit_suspending(draft, job, key, reason):
            return True
    return False


def _admit_suspending(draft, job, key, reason):
    """Start ``job`` by suspending whole elastic jobs of its priority in later queues (the
    most attained service first, then the latest submitted), each followed by a try to
    start it with spare workers as ``admit`` does; all or nothing."""
    mine = queue(job, draft.config)
    later = [v for v in draft.running() if v.elastic and v.workers and not draft.cooling(v)
             and v.priority == job.priority and queue(v, draft.config) > mine]
    later.sort(key=lambda v: (queue(v, draft.config), v.attained, v.submitted, v.name),
               reverse=True)
    snapshot = draft.snapshot()
    for victim in later:
        if not draft.suspend(victim.name, f"suspend for job {job.name} (queue {mine})"):
            continue
        if admit(draft, job, _victims(job, True), key, reason):
            return True
    draft.restore(snapshot)
    return False


def _grow(draft):
    """One worker more for the first job in growth order that fits in free room; else
    for the first that fits where a job of its priority in a later queue gives up a spare
    worker."""
    if any(could_admit(draft, job, _victims(job, False)) for job in _queue(draft)):
        return False
    candidates = [j for j in draft.growable() if efficiency(j, j.workers) > 1e-9]
    candidates.sort(key=lambda j: grow_key(j, draft.config))
    for job in candidates:
        node = most_free(draft.room, job.worker)
        if node is not None and draft.add(job.name, node, _reason(job)):
            return True
    return any(_take_from_later_queue(draft, job) for job in candidates)


def _reason(job):
    return f"grow: marginal throughput {efficiency(job, job.workers):.2f}"


def _take_from_later_queue(draft, job):
    """Move one spare worker of a job of the same priority in a later queue (largest
    ``shrink_key`` first, from its node with the most of its workers where ``job``'s
    worker then fits) to ``job``."""
    mine = queue(job, draft.config)
    victims = [v for v in draft.shrinkable() if v.priority == job.priority
               and queue(v, draft.config) > mine]
    for victim in sorted(victims, key=lambda j: shrink_key(j, draft.config), reverse=True):
        nodes = sorted(victim.placement, key=lambda n: (-victim.placement[n], n))
        for node in nodes:
            if not job.worker.fits_in(draft.room[node] + victim.worker):
                continue
            snapshot = draft.snapshot()
            if (draft.remove(victim.name, node, f"reclaim for job {job.name}")
                    and draft.add(job.name, node, _reason(draft.jobs[job.name]))):
                return True
            draft.restore(snapshot)
    return False
