"""This worker's membership of an elastic job: its key under /skiff/JOB/members/, held
under an etcd lease a thread keeps alive, so a killed or stopped worker's key vanishes; and
etcd calls retried while etcd is unreachable (restarting)."""
import os
import threading
import time
import uuid

from ... import _C
from .. import collective
from ..lease import KeptLease

__all__ = ["Membership", "retry"]


class Membership:
    """This worker's key under /skiff/JOB/members/, under a kept lease; if the lease
    expired (the worker was stopped), the key is put again under a new one and ``lost``
    is set: the worker then joins anew."""

    def __init__(self, etcd, job, ttl):
        self.etcd = etcd
        self.prefix = f"/skiff/{job}/members/"
        self.id = f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}"
        self.lost = threading.Event()
        self.lease = KeptLease(etcd, ttl, on_regranted=self._regranted)
        self._put_key(self.lease.id)

    def _put_key(self, lease):
        self.etcd.put(self.prefix + self.id, str(os.getpid()), lease)

    def _regranted(self, lease):
        self.lost.set()
        self._put_key(lease)

    def put(self, key, value):
        """Puts ``key`` under this worker's lease (renewed first if it expired)."""
        try:
            self.etcd.put(key, value, self.lease.id)
        except collective.CommunicationError:
            raise
        except _C.Error as e:
            if "lease not found" not in str(e):
                raise
            self.etcd.put(key, value, self.lease.renew())

    def live(self):
        """The ids of the job's live workers, sorted."""
        return sorted(kv.key[len(self.prefix):] for kv in self.etcd.get_prefix(self.prefix))

    def leave(self):
        """Revokes the lease: this worker's key vanishes now."""
        self.lease.revoke()


def retry(fn, what, deadline_s=60.0):
    """fn(), retried while etcd is unreachable (restarting), up to a deadline."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return fn()
        except collective.CommunicationError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"elastic: etcd unreachable for {deadline_s:.0f} s ({what})")
            time.sleep(0.2)
