"""Cluster states as data for the operator's tests: SkiffJobs, pods and nodes as the API
shows them, and ``apply`` (what the API server and a kubelet would make of operations)."""
import copy

from skiff.cloud.operator.objects import INDEX_LABEL, JOB_LABEL

__all__ = ["skiffjob", "worker", "node", "apply"]


def skiffjob(name="mnist", low=2, high=4, desired=None, phase=None, deleting=False, **spec):
    job = {"apiVersion": "skiff.dev/v1alpha1", "kind": "SkiffJob",
           "metadata": {"name": name, "namespace": "ml", "uid": f"uid-{name}",
                        "finalizers": ["skiff.dev/workers"]},
           "spec": {"image": "skiff:latest", "command": ["train.py", "--epochs", "3"],
                    "workers": {"min": low, "max": high}, "nprocPerWorker": 1,
                    "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}, **spec}}
    if desired is not None or phase:
        job["status"] = {"phase": phase or "Pending", "workers": {"desired": desired or 0}}
    if deleting:
        job["metadata"]["deletionTimestamp"] = "2030-01-01T00:00:00Z"
    return job


def worker(job, index, phase="Running", node="n1", reason=None):
    name = job["metadata"]["name"]
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": f"{name}-worker-{index}", "namespace": "ml",
                        "labels": {JOB_LABEL: name, INDEX_LABEL: str(index)}},
           "spec": {"nodeName": node, "containers": [
               {"name": "worker", "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}]},
           "status": {"phase": phase}}
    if reason:
        pod["status"]["reason"] = reason
    return pod


def node(name, cpu="8", memory="32Gi"):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "status": {"allocatable": {"cpu": cpu, "memory": memory},
                       "conditions": [{"type": "Ready", "status": "True"}]}}


def _merge(target, patch):
    for key, value in patch.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        elif value is None:
            target.pop(key, None)
        else:
            target[key] = copy.deepcopy(value)


def apply(job, pods, services, ops):
    """(job, pods, services) after ``ops``: created pods are Pending (no kubelet), deleted
    ones gone at once, patches merged; the job is None once it lost its last finalizer
    while being deleted."""
    job, pods, services = copy.deepcopy(job), copy.deepcopy(pods), copy.deepcopy(services)
    for op in ops:
        if op.kind == "Pod" and op.verb == "create":
            assert all(p["metadata"]["name"] != op.name for p in pods), op.name
            pods.append({**copy.deepcopy(op.body), "status": {"phase": "Pending"}})
        elif op.kind == "Pod" and op.verb == "delete":
            pods = [p for p in pods if p["metadata"]["name"] != op.name]
        elif op.kind == "Service" and op.verb == "create":
            services.append(copy.deepcopy(op.body))
        elif op.kind == "Service" and op.verb == "delete":
            services = [s for s in services if s["metadata"]["name"] != op.name]
        elif op.kind == "SkiffJob":
            _merge(job, op.body)
    if job["metadata"].get("deletionTimestamp") and not job["metadata"].get("finalizers"):
        job = None
    return job, pods, services
