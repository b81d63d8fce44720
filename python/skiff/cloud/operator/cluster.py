"""The autoscaler's view of the cluster (a ClusterState) built from what the API shows, as a
pure function. Nodes: the ready, schedulable ones, free = allocatable minus the requests of
the pods bound there (terminating ones too: they still hold it). Jobs: the SkiffJobs that
are not finished, with status.workers.desired as their workers (what the autoscaler's
actions move). Services: other pods waiting for a node, grouped by their controller (a
Deployment's ReplicaSet, a StatefulSet...): what a HorizontalPodAutoscaler asked for and the
cluster has no room for; the autoscaler makes room by shrinking elastic jobs."""
import datetime
import math

from ..autoscaler.state import ClusterState, Job, Node, Resources, Service
from .objects import JOB_LABEL
from .pods import LIVE, pod_state
from .quantity import to_resources
from .reconcile import TERMINAL
from .spec import KIND, InvalidJob, read_spec

__all__ = ["cluster_state", "job_name", "pod_requests", "usable_nodes"]


def job_name(job):
    """The job's name for the autoscaler: NAMESPACE/NAME."""
    return f"{job['metadata']['namespace']}/{job['metadata']['name']}"


def _epoch(text, default):
    if not text:
        return default
    when = datetime.datetime.strptime(text[:19], "%Y-%m-%dT%H:%M:%S")
    return when.replace(tzinfo=datetime.timezone.utc).timestamp()


def pod_requests(pod):
    """What a pod's containers ask for, summed."""
    total = Resources()
    for c in (pod.get("spec") or {}).get("containers") or []:
        total = total + to_resources((c.get("resources") or {}).get("requests"))
    return total


def usable_nodes(nodes):
    """The nodes new pods may go to: not cordoned, and Ready (or reporting no conditions)."""
    def ready(node):
        conditions = (node.get("status") or {}).get("conditions") or []
        found = [c for c in conditions if c.get("type") == "Ready"]
        return not found or found[0].get("status") == "True"
    return [n for n in nodes if not (n.get("spec") or {}).get("unschedulable") and ready(n)]


def _holds_node(pod):
    return (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")


def _is_worker(pod):
    meta = pod["metadata"]
    return JOB_LABEL in (meta.get("labels") or {}) or any(
        o.get("kind") == KIND for o in meta.get("ownerReferences") or [])


def _service_key(pod):
    meta = pod["metadata"]
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
    kind, name = (owner["kind"], owner["name"]) if owner else ("Pod", meta["name"])
    return f"{meta.get('namespace', '')}/{kind}/{name}"


def cluster_state(jobs, pods, nodes, now):
    """A ClusterState of the SkiffJob, Pod and Node dicts the API lists, at time ``now``."""
    node_names = {n["metadata"]["name"] for n in nodes}
    used = {}
    for pod in pods:
        node = (pod.get("spec") or {}).get("nodeName")
        if node and _holds_node(pod):
            used[node] = used.get(node, Resources()) + pod_requests(pod)
    state_nodes = []
    for n in sorted(usable_nodes(nodes), key=lambda n: n["metadata"]["name"]):
        capacity = to_resources((n.get("status") or {}).get("allocatable"))
        state_nodes.append(Node(n["metadata"]["name"], capacity,
                                capacity - used.get(n["metadata"]["name"], Resources())))
    state_jobs = []
    for job in sorted(jobs, key=job_name):
        status = job.get("status") or {}
        if job["metadata"].get("deletionTimestamp") or status.get("phase") in TERMINAL:
            continue
        try:
            spec = read_spec(job)
        except InvalidJob:
            continue
        meta = job["metadata"]
        placement = {}
        for pod in pods:
            labels = pod["metadata"].get("labels") or {}
            node = (pod.get("spec") or {}).get("nodeName")
            if (labels.get(JOB_LABEL) == meta["name"] and node
                    and pod["metadata"].get("namespace") == meta["namespace"]
                    and pod_state(pod, node_names) == LIVE):
                placement[node] = placement.get(node, 0) + 1
        low, high = spec.bounds
        state_jobs.append(Job(
            name=job_name(job), min_workers=low, max_workers=high, worker=spec.worker,
            workers=int((status.get("workers") or {}).get("desired", 0)),
            placement=placement, priority=spec.priority, elastic=spec.elastic and high > low,
            submitted=_epoch(meta.get("creationTimestamp"), 0.0),
            last_scaled=_epoch(status.get("lastScaleTime"), -math.inf)))
    groups = {}
    for pod in pods:
        if _is_worker(pod) or pod_state(pod, node_names) != LIVE:
            continue
        groups.setdefault(_service_key(pod), []).append(pod)
    services = []
    for key, group in sorted(groups.items()):
        bound = sum(1 for p in group if (p.get("spec") or {}).get("nodeName"))
        if bound == len(group):
            continue  # nothing waits for room
        pod = max((pod_requests(p) for p in group), key=lambda r: (r.gpu, r.cpu, r.memory))
        priority = max(int((p.get("spec") or {}).get("priority") or 0) for p in group)
        services.append(Service(key, demand=len(group), pods=bound, pod=pod, priority=priority))
    return ClusterState(now=now, nodes=tuple(state_nodes), jobs=tuple(state_jobs),
                        services=tuple(services))
