"""What a worker pod's state means to its job: live (pending or running), succeeded,
failed (the program's fault: counted), lost (its node is gone, it was evicted, or its
state is unknown: a worker leaving, not counted), or terminating (being deleted)."""
import re

from .objects import INDEX_LABEL

__all__ = ["LIVE", "SUCCEEDED", "FAILED", "LOST", "TERMINATING", "pod_state", "worker_index",
           "is_running"]

LIVE, SUCCEEDED, FAILED, LOST, TERMINATING = "live", "succeeded", "failed", "lost", "terminating"


def pod_state(pod, nodes):
    """One of the five states above; ``nodes``: the names of the nodes that exist."""
    if pod["metadata"].get("deletionTimestamp"):
        return TERMINATING
    status = pod.get("status") or {}
    phase = status.get("phase", "Pending")
    node = (pod.get("spec") or {}).get("nodeName")
    if phase == "Succeeded":
        return SUCCEEDED
    if phase == "Unknown" or (phase == "Failed" and status.get("reason") == "Evicted"):
        return LOST
    if phase == "Failed":
        return FAILED
    if node and node not in nodes:
        return LOST
    return LIVE


def is_running(pod):
    return (pod.get("status") or {}).get("phase") == "Running"


def worker_index(pod):
    """The worker's index (its label, else the end of its name; -1 if neither)."""
    label = (pod["metadata"].get("labels") or {}).get(INDEX_LABEL)
    if label is not None and label.isdigit():
        return int(label)
    found = re.search(r"-(\d+)$", pod["metadata"]["name"])
    return int(found.group(1)) if found else -1
