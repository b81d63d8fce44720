"""The keys waiting to be reconciled: each at most once, the earliest due first; a key
whose reconcile failed waits BASE * 2^failures seconds (up to CAP) before its next try."""
import threading
import time

__all__ = ["WorkQueue"]


class WorkQueue:
    """Keys (namespace, name) to reconcile, with per-key exponential backoff."""

    BASE, CAP = 0.5, 60.0

    def __init__(self, clock=time.monotonic):
        self._due, self._failures = {}, {}
        self._clock = clock
        self._ready = threading.Condition()

    def add(self, key, after=0.0):
        """Queues ``key`` to run ``after`` seconds from now (an earlier time already set
        stays)."""
        with self._ready:
            when = self._clock() + after
            if key not in self._due or when < self._due[key]:
                self._due[key] = when
            self._ready.notify()

    def get(self, timeout):
        """The earliest key that is due, waiting up to ``timeout`` seconds; None if none."""
        deadline = self._clock() + timeout
        with self._ready:
            while True:
                now = self._clock()
                if self._due:
                    key = min(self._due, key=self._due.get)
                    if self._due[key] <= now:
                        del self._due[key]
                        return key
                    wait = min(self._due[key], deadline) - now
                else:
                    wait = deadline - now
                if wait <= 0:
                    return None
                self._ready.wait(wait)

    def failed(self, key):
        """Requeues ``key`` after its backoff; returns the delay."""
        n = self._failures.get(key, 0)
        self._failures[key] = n + 1
        delay = min(self.CAP, self.BASE * 2 ** n)
        self.add(key, after=delay)
        return delay

    def succeeded(self, key):
        self._failures.pop(key, None)

    def wake(self):
        """Ends a waiting get() now (to stop, or to run an autoscaler pass)."""
        with self._ready:
            self._ready.notify_all()
