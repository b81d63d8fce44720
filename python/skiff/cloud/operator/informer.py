"""One kind's objects kept current in memory: listed, then watched from the list's
resourceVersion; a watch that ends (its timeout) resumes from the last version seen, one
that expired (410 Gone) or failed lists again. Each change calls ``on_change(old, new)``
(``new`` None: deleted)."""
import json
import logging
import threading

import urllib3
from kubernetes.client import ApiException
from kubernetes.watch.watch import iter_resp_lines

__all__ = ["Informer", "object_key"]

log = logging.getLogger("skiff.cloud.operator")


def object_key(obj):
    meta = obj["metadata"]
    return (meta.get("namespace") or "", meta["name"])


def _version(obj):
    text = obj["metadata"].get("resourceVersion")
    return int(text) if text and text.isdigit() else None


class Informer:
    """``list_call``: an API list method (it takes watch=, resource_version=,
    timeout_seconds=), its fixed arguments bound (e.g. functools.partial)."""

    def __init__(self, kind, list_call, on_change, stop, watch_timeout=30):
        self.kind, self._list, self._on_change, self._stop = kind, list_call, on_change, stop
        self.watch_timeout = watch_timeout
        self._objects, self._lock = {}, threading.Lock()
        self.synced = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"watch {kind}", daemon=True)

    def start(self):
        self._thread.start()

    def join(self, timeout):
        self._thread.join(timeout)

    def objects(self):
        """A snapshot of the objects (a list of dicts; do not change them)."""
        with self._lock:
            return list(self._objects.values())

    def get(self, key):
        with self._lock:
            return self._objects.get(key)

    def store(self, obj, deleted=False):
        """Takes an object the API returned (or an event's), unless what it holds is newer
        (both versions numeric: etcd's revisions), and reports the change."""
        key = object_key(obj)
        with self._lock:
            old = self._objects.get(key)
            if old is not None and not deleted:
                have, new = _version(old), _version(obj)
                if have is not None and new is not None and new < have:
                    return
            if deleted:
                self._objects.pop(key, None)
            else:
                self._objects[key] = obj
        if deleted and old is None:
            return
        self._on_change(old, None if deleted else obj)

    def _replace(self, items):
        with self._lock:
            old = self._objects
            self._objects = {object_key(o): o for o in items}
        for key, obj in old.items():
            if key not in self._objects:
                self._on_change(obj, None)
        for key, obj in self._objects.items():
            self._on_change(old.get(key), obj)

    def _run(self):
        pause = 0.5
        while not self._stop.is_set():
            try:
                listing = json.loads(self._list(_preload_content=False).data)
                self._replace(listing.get("items") or [])
                self.synced.set()
                version = (listing.get("metadata") or {}).get("resourceVersion")
                self._watch(version)
                pause = 0.5
            except ApiException as e:
                if e.status != 410:
                    log.warning("%s: %s %s; listing again in %.1f s", self.kind, e.status,
                                e.reason, pause)
                    self._stop.wait(pause)
                    pause = min(30.0, pause * 2)
            except Exception as e:  # noqa: BLE001  (a dropped connection, a bad reply: list again)
                log.warning("%s: watch failed (%s); listing again in %.1f s", self.kind,
                            e, pause)
                self._stop.wait(pause)
                pause = min(30.0, pause * 2)

    def _watch(self, version):
        """Watches from ``version`` until stopped or an exception (ApiException 410: the
        version expired)."""
        while not self._stop.is_set():
            kwargs = {"watch": True, "timeout_seconds": self.watch_timeout,
                      "allow_watch_bookmarks": True, "_preload_content": False,
                      "_request_timeout": (10, self.watch_timeout + 10)}
            if version and version.isdigit():
                kwargs["resource_version"] = version
            response = self._list(**kwargs)
            try:
                for line in iter_resp_lines(response):
                    if self._stop.is_set():
                        return
                    if not line.strip():
                        continue
                    event = json.loads(line)
                    kind, obj = event["type"], event["object"]
                    if kind == "ERROR":
                        raise ApiException(status=obj.get("code"), reason=obj.get("message"))
                    version = (obj.get("metadata") or {}).get("resourceVersion") or version
                    if kind != "BOOKMARK":
                        self.store(obj, deleted=kind == "DELETED")
            except urllib3.exceptions.ReadTimeoutError:
                pass  # a quiet server past the timeout it was asked for: watch again
            finally:
                response.close()
                response.release_conn()
