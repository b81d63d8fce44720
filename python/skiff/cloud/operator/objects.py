"""The objects the operator creates, as plain dicts: a SkiffJob's worker Pods (each runs
``skiff launch`` for the job's elastic world) and its headless Service (the workers' DNS
names, NAME-worker-INDEX.NAME.NAMESPACE.svc)."""
from .spec import GROUP, KIND, VERSION

__all__ = ["JOB_LABEL", "INDEX_LABEL", "MANAGED_BY", "FINALIZER", "etcd_job_id",
           "worker_name", "worker_pod", "job_service"]

JOB_LABEL = f"{GROUP}/job"
INDEX_LABEL = f"{GROUP}/worker-index"
MANAGED_BY = {"app.kubernetes.io/managed-by": "skiff-operator"}
FINALIZER = f"{GROUP}/workers"
LOG_DIR = "/tmp/skiff/log"


def etcd_job_id(job):
    """The job's name in etcd (/skiff/ID/...): NAMESPACE-NAME, unique in the cluster."""
    return f"{job['metadata']['namespace']}-{job['metadata']['name']}"


def worker_name(job, index):
    return f"{job['metadata']['name']}-worker-{index}"


def _owner(job):
    return {"apiVersion": f"{GROUP}/{VERSION}", "kind": KIND, "name": job["metadata"]["name"],
            "uid": job["metadata"].get("uid", ""), "controller": True,
            "blockOwnerDeletion": True}


def _labels(job):
    return {**MANAGED_BY, JOB_LABEL: job["metadata"]["name"]}


def launch_args(job, spec, etcd):
    """``skiff launch``'s arguments in a worker: the job's bounds in pods (MIN:MAX, or N when
    it is not elastic), its etcd, its name there, this pod's address, then the program."""
    low, high = spec.bounds
    return ["--nnodes", f"{low}:{high}" if high > low else str(low),
            "--nproc_per_node", str(spec.nproc_per_worker), "--etcd", spec.etcd or etcd,
            "--job_id", etcd_job_id(job), "--host", "$(POD_IP)", "--log_dir", LOG_DIR,
            *spec.command]


def worker_pod(job, spec, index, etcd, node=None):
    """Worker ``index`` of ``job`` (its JobSpec ``spec``), meeting the others in ``etcd``
    (HOST:PORT, unless the spec names one); ``node``: the node the autoscaler chose, a
    preference for the scheduler (it may place the pod elsewhere)."""
    name = worker_name(job, index)
    env = [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
           {"name": "SKIFF_K8S_JOB", "value": job["metadata"]["name"]}]
    env += [{"name": k, "value": v} for k, v in spec.env]
    resources = {}
    if spec.requests:
        resources["requests"] = dict(spec.requests)
    if spec.limits:
        resources["limits"] = dict(spec.limits)
    pod_spec = {
        "restartPolicy": "Never",
        "hostname": name,
        "subdomain": job["metadata"]["name"],
        "containers": [{
            "name": "worker", "image": spec.image,
            "command": ["python", "-m", "skiff.distributed.launch"],
            "args": launch_args(job, spec, etcd), "env": env, "resources": resources}],
    }
    if spec.priority_class:
        pod_spec["priorityClassName"] = spec.priority_class
    if node:
        preference = {"matchFields": [{"key": "metadata.name", "operator": "In",
                                       "values": [node]}]}
        pod_spec["affinity"] = {"nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "preference": preference}]}}
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": job["metadata"]["namespace"],
                     "labels": {**_labels(job), INDEX_LABEL: str(index)},
                     "ownerReferences": [_owner(job)]},
        "spec": pod_spec,
    }


def job_service(job):
    """The job's headless Service: every worker gets the DNS name
    NAME-worker-INDEX.NAME.NAMESPACE.svc, ready or not."""
    return {
        "apiVersion": "v1", "kind": "Service",
        "metadata": {"name": job["metadata"]["name"], "namespace": job["metadata"]["namespace"],
                     "labels": _labels(job), "ownerReferences": [_owner(job)]},
        "spec": {"clusterIP": "None", "publishNotReadyAddresses": True,
                 "selector": {JOB_LABEL: job["metadata"]["name"]}},
    }
