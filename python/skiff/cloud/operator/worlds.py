"""The newest world an elastic job's workers formed, as its etcd holds it (the workers write
/skiff/NAMESPACE-NAME/world/EPOCH: the members' list): what the operator shows as the
SkiffJob's status.worldEpoch and status.worldSize."""
import json
import logging

from ..runner import etcd_range
from .objects import etcd_job_id

__all__ = ["latest_world"]

log = logging.getLogger("skiff.cloud.operator")


def latest_world(job, endpoint, timeout=1.0):
    """(epoch, size) of ``job``'s newest world in the etcd at ``endpoint``, or None when it
    has formed none or etcd does not answer within ``timeout`` (the status then keeps what
    it had)."""
    prefix = f"/skiff/{etcd_job_id(job)}/world/"
    try:
        worlds = etcd_range(endpoint, prefix, timeout)
    except (OSError, ValueError) as e:
        log.debug("%s: etcd %s did not answer: %s", prefix, endpoint, e)
        return None
    epochs = {}
    for key, value in worlds.items():
        tail = key.rsplit("/", 1)[1]
        if tail.isdigit():
            epochs[int(tail)] = value
    if not epochs:
        return None
    epoch = max(epochs)
    try:
        size = len(json.loads(epochs[epoch]))
    except ValueError:
        size = None
    return epoch, size
