"""An etcd lease kept alive by a background thread: the launcher's node key and an
elastic worker's membership key live under one, so they vanish when their process dies
or stops."""
import atexit
import threading

from .. import _C

__all__ = ["KeptLease"]


class KeptLease:
    """Grants a lease of ``ttl`` seconds and renews it every ttl/4. If it expired anyway
    (the process was stopped longer than the TTL), ``renew`` grants a new one and calls
    ``on_regranted(lease_id)`` so the caller can put its keys again."""

    def __init__(self, etcd, ttl, on_regranted=None):
        self.etcd = etcd
        self.ttl = ttl
        self.on_regranted = on_regranted
        self._lock = threading.Lock()
        self.id = etcd.grant_lease(ttl)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._keep_alive, daemon=True)
        self._thread.start()
        atexit.register(self._halt)

    def renew(self):
        """Keeps the lease alive now (granting a new one if it expired); returns its id."""
        with self._lock:
            if self.etcd.keep_alive(self.id) <= 0:
                self.id = self.etcd.grant_lease(self.ttl)
                if self.on_regranted:
                    self.on_regranted(self.id)
            return self.id

    def _keep_alive(self):
        while not self._stop.wait(self.ttl / 4):
            try:
                self.renew()
            except _C.Error:
                pass  # etcd away for a moment (restarting): the next renewal may reach it

    def _halt(self):
        # The renewal thread must not be inside etcd (C++, without the GIL) when Python
        # exits: a daemon thread that wakes up then is ended by an unwind that aborts
        # the process ("terminate called without an active exception").
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=30)

    def revoke(self):
        self._halt()
        try:
            self.etcd.revoke_lease(self.id)
        except _C.Error:
            pass  # already expired, or etcd gone: the key vanishes either way
