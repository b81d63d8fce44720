"""One SkiffJob's reconcile as a pure function: what the API shows (the job, its pods, the
nodes that exist, its Service) and the autoscaler's actions on it in, the API operations
that bring the cluster to what the job wants out. Level-triggered: the same observed state
gives the same operations, and the state those operations make gives none.

    ops = reconcile(job, pods, nodes={"n1", "n2"}, services=[svc], actions=[], now=t)

The desired number of workers lives in the job's status (status.workers.desired): the
autoscaler's actions move it (+1, -1, +min on admission), the pods follow it. A job's
phase: Pending (fewer than its minimum running), Running, Succeeded (a worker exited 0:
the world finished its epochs; the job ends once no worker runs), Failed (more failed
workers than spec.maxRestarts, or an invalid spec)."""
import dataclasses
import datetime

from .objects import FINALIZER, JOB_LABEL, job_service, worker_name, worker_pod
from .pods import FAILED, LIVE, LOST, SUCCEEDED, is_running, pod_state, worker_index
from .spec import InvalidJob, read_spec

__all__ = ["Operation", "reconcile", "desired_workers", "TERMINAL"]

TERMINAL = ("Succeeded", "Failed")


@dataclasses.dataclass(frozen=True)
class Operation:
    """One intended API call. ``verb``: create, delete, patch (the object's metadata) or
    patch_status (the status subresource); ``kind``: Pod, Service or SkiffJob; ``body``:
    the object to create or the merge patch."""

    verb: str
    kind: str
    namespace: str
    name: str
    body: dict | None = None


def _time(now):
    return datetime.datetime.fromtimestamp(now, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def desired_workers(job, actions=(), bounds=None):
    """The job's desired workers: its status' count moved by the actions' deltas, then kept
    at 0 or within its bounds (min, max)."""
    status = job.get("status") or {}
    count = int((status.get("workers") or {}).get("desired", 0)) + sum(a.delta for a in actions)
    if bounds is None or count <= 0:
        return max(0, count)
    return min(max(count, bounds[0]), bounds[1])


def _condition(old_status, phase, message, now):
    ready = "True" if phase in ("Running", "Succeeded") else "False"
    old = next((c for c in old_status.get("conditions") or [] if c.get("type") == "Ready"), {})
    since = old.get("lastTransitionTime") if old.get("status") == ready else _time(now)
    return [{"type": "Ready", "status": ready, "reason": phase, "message": message,
             "lastTransitionTime": since or _time(now)}]


def _status_op(job, status, now, message):
    old = job.get("status") or {}
    status = {**status, "conditions": _condition(old, status["phase"], message, now)}
    if all(old.get(k) == v for k, v in status.items()):
        return []
    meta = job["metadata"]
    return [Operation("patch_status", "SkiffJob", meta["namespace"], meta["name"],
                      {"status": status})]


def _finalizer_op(job, present):
    meta = job["metadata"]
    finalizers = list(meta.get("finalizers") or [])
    if (FINALIZER in finalizers) == present:
        return []
    finalizers = finalizers + [FINALIZER] if present else [
        f for f in finalizers if f != FINALIZER]
    patch = {"metadata": {"finalizers": finalizers}}
    if meta.get("resourceVersion"):
        patch["metadata"]["resourceVersion"] = meta["resourceVersion"]
    return [Operation("patch", "SkiffJob", meta["namespace"], meta["name"], patch)]


def _delete(pod):
    return Operation("delete", "Pod", pod["metadata"]["namespace"], pod["metadata"]["name"])


def _removal_order(live, actions):
    """Live pods in the order they go when the job shrinks: those on the nodes the
    autoscaler named first, then pods not yet running, then the highest index."""
    named = [a.node for a in actions if a.delta < 0 and a.node]

    def key(pod):
        node = (pod.get("spec") or {}).get("nodeName")
        return (0 if node in named else 1, 1 if is_running(pod) else 0, -worker_index(pod))
    return sorted(live, key=key)


def _placement(actions):
    """The nodes the autoscaler chose for new workers, in order (one entry per worker)."""
    nodes = []
    for a in actions:
        if a.placement:
            for node, count in sorted(a.placement.items()):
                nodes += [node] * count
        elif a.delta > 0:
            nodes += [a.node] * a.delta
    return nodes


def _running_after(live, work):
    """Running workers once ``work``'s deletions are done (the status says what will be)."""
    going = {op.name for op in work if op.verb == "delete"}
    return sum(1 for p in live if is_running(p) and p["metadata"]["name"] not in going)


def reconcile(job, pods, nodes, services=(), actions=(), now=0.0, etcd="", world=None):
    """The operations for ``job`` (a SkiffJob dict) given ``pods`` (its workers; other pods
    are ignored), ``nodes`` (names of the nodes that exist), ``services`` (Service dicts in
    its namespace), the autoscaler's ``actions`` on it, the time ``now`` (s since the epoch),
    the operator's default ``etcd`` (HOST:PORT) and the newest ``world`` its workers formed
    ((epoch, size), or None: not known)."""
    meta = job["metadata"]
    name, namespace = meta["name"], meta["namespace"]
    pods = [p for p in pods if (p["metadata"].get("labels") or {}).get(JOB_LABEL) == name
            and p["metadata"].get("namespace") == namespace]
    service = next((s for s in services if s["metadata"]["name"] == name
                    and (s["metadata"].get("labels") or {}).get(JOB_LABEL) == name), None)
    states = {p["metadata"]["name"]: pod_state(p, nodes) for p in pods}

    if meta.get("deletionTimestamp"):  # the finalizer: workers first, then the job goes
        ops = [_delete(p) for p in pods if states[p["metadata"]["name"]] != "terminating"]
        if service and not service["metadata"].get("deletionTimestamp"):
            ops.append(Operation("delete", "Service", namespace, name))
        return ops or _finalizer_op(job, present=False)

    ops = _finalizer_op(job, present=True)
    old = job.get("status") or {}
    try:
        spec = read_spec(job)
    except InvalidJob as e:
        return ops + _status_op(job, {"phase": "Failed", "workers": old.get("workers", {})},
                                now, f"invalid spec: {e}")
    by_state = {s: [p for p in pods if states[p["metadata"]["name"]] == s]
                for s in (LIVE, SUCCEEDED, FAILED, LOST)}
    live = by_state[LIVE]
    running = sum(1 for p in live if is_running(p))
    work = []  # after the status, which records the desired count first
    work += [_delete(p) for p in by_state[LOST]]
    desired = desired_workers(job, actions, spec.bounds) if old.get("phase") not in TERMINAL \
        else int((old.get("workers") or {}).get("desired", 0))
    workers = {"desired": desired, "current": running, "failed": len(by_state[FAILED])}
    status = {"phase": old.get("phase", "Pending"), "workers": workers,
              "lastScaleTime": old.get("lastScaleTime")}
    if world is not None:
        status["worldEpoch"] = world[0]
        if world[1] is not None:
            status["worldSize"] = world[1]
    if status["phase"] in TERMINAL:
        message = next((c.get("message", "") for c in old.get("conditions") or []
                        if c.get("type") == "Ready"), status["phase"])
        work += [_delete(p) for p in live]
    elif len(by_state[FAILED]) > spec.max_restarts:
        status["phase"], message = "Failed", (f"{len(by_state[FAILED])} workers failed "
                                              f"(spec.maxRestarts {spec.max_restarts})")
        work += [_delete(p) for p in live]
    elif by_state[SUCCEEDED]:  # the world finished: let the running ones end, start no more
        work += [_delete(p) for p in live if not is_running(p)]
        status["phase"], message = ("Running", "finishing") if running else (
            "Succeeded", "a worker finished the training")
    else:
        if desired != int((old.get("workers") or {}).get("desired", 0)):
            status["lastScaleTime"] = _time(now)
        if service is None:
            work.append(Operation("create", "Service", namespace, name, job_service(job)))
        if len(live) > desired:
            work += [_delete(p) for p in _removal_order(live, actions)[:len(live) - desired]]
        taken = {worker_index(p) for p in pods}
        places = _placement(actions)
        index = 0
        for k in range(desired - len(live)):
            while index in taken:
                index += 1
            taken.add(index)
            node = places[k] if k < len(places) else None
            pod = worker_pod(job, spec, index, etcd, node)
            work.append(Operation("create", "Pod", namespace, worker_name(job, index), pod))
        running = _running_after(live, work)
        status["phase"] = "Running" if desired and running >= spec.bounds[0] else "Pending"
        message = (f"{running} of {desired} workers running" if desired else
                   "waiting for the autoscaler to admit it")
    workers["current"] = _running_after(live, work)
    if status["lastScaleTime"] is None:
        del status["lastScaleTime"]
    return ops + _status_op(job, status, now, message) + work
