"""The operator's loop: SkiffJobs, Pods, Nodes and the jobs' Services listed and watched
(informer.py), job keys queued on their changes (workqueue.py), each reconciled
(reconcile.py) and its operations carried out; an API error requeues the key with
exponential backoff. Every ``config.interval`` seconds, and soon after a job comes, goes
or changes its spec, the autoscaler plans over the whole cluster (cluster.py) and the jobs
it acts on are reconciled with its actions.

    controller = Controller(kubernetes.client.ApiClient(), plan=autoscaler.plan)
    controller.start(); ...; controller.stop()"""
import functools
import json
import logging
import threading
import time

from kubernetes import client as k8s
from kubernetes.client import ApiException

from ..autoscaler.state import Config
from .cluster import cluster_state, job_name
from .informer import Informer, object_key
from .objects import JOB_LABEL
from .reconcile import reconcile
from .spec import GROUP, PLURAL, VERSION
from .worlds import latest_world
from .workqueue import WorkQueue

__all__ = ["Controller", "DEFAULT_ETCD"]

log = logging.getLogger("skiff.cloud.operator")
DEFAULT_ETCD = "skiff-etcd.skiff-system.svc:2379"
MERGE_PATCH = "application/merge-patch+json"


class Controller:
    """Drives the SkiffJobs of ``namespace`` (None: all) through ``api_client``; ``plan``:
    the autoscaler (state, config) -> actions; ``etcd``: HOST:PORT the workers meet at
    unless a job names its own."""

    def __init__(self, api_client, plan, config=Config(), namespace=None, etcd=DEFAULT_ETCD,
                 watch_timeout=30, clock=time.time):
        self.core, self.custom = k8s.CoreV1Api(api_client), k8s.CustomObjectsApi(api_client)
        self.plan, self.config, self.namespace, self.etcd = plan, config, namespace, etcd
        self.clock = clock
        self.queue, self._stop = WorkQueue(), threading.Event()
        self._autoscale_at = 0.0
        self._worlds = {}  # job key -> (epoch, size) of its newest world
        if namespace:
            jobs = functools.partial(self.custom.list_namespaced_custom_object, GROUP, VERSION,
                                     namespace, PLURAL)
            services = functools.partial(self.core.list_namespaced_service, namespace,
                                         label_selector=JOB_LABEL)
        else:
            jobs = functools.partial(self.custom.list_cluster_custom_object, GROUP, VERSION,
                                     PLURAL)
            services = functools.partial(self.core.list_service_for_all_namespaces,
                                         label_selector=JOB_LABEL)
        # every pod, in every namespace: each holds its node's resources
        self.jobs = Informer("skiffjobs", jobs, self._job_changed, self._stop, watch_timeout)
        self.pods = Informer("pods", self.core.list_pod_for_all_namespaces, self._pod_changed,
                             self._stop, watch_timeout)
        self.nodes = Informer("nodes", self.core.list_node, self._node_changed, self._stop,
                              watch_timeout)
        self.services = Informer("services", services, self._pod_changed, self._stop,
                                 watch_timeout)
        self._thread = threading.Thread(target=self._loop, name="reconcile", daemon=True)

    # --- changes seen -> keys queued
    def _job_changed(self, old, new):
        obj = new or old
        self.queue.add(object_key(obj))
        spec_changed = old is None or new is None or (
            old["metadata"].get("generation") != new["metadata"].get("generation"))
        if spec_changed or new["metadata"].get("deletionTimestamp"):
            self._autoscale_at = min(self._autoscale_at, time.monotonic() + 0.2)
            self.queue.wake()

    def _pod_changed(self, old, new):
        obj = new or old
        job = (obj["metadata"].get("labels") or {}).get(JOB_LABEL)
        if job and (self.namespace is None or obj["metadata"].get("namespace") == self.namespace):
            self.queue.add((obj["metadata"].get("namespace") or "", job))

    def _node_changed(self, old, new):
        if old is None or new is None:  # a node came or went: every job looks again
            for job in self.jobs.objects():
                self.queue.add(object_key(job))

    # --- the loop
    def start(self, sync_timeout=30.0):
        """Starts watching and reconciling; returns once the first lists are in."""
        for informer in (self.jobs, self.pods, self.nodes, self.services):
            informer.start()
        deadline = time.monotonic() + sync_timeout
        for informer in (self.jobs, self.pods, self.nodes, self.services):
            informer.synced.wait(max(0.0, deadline - time.monotonic()))
        self._thread.start()
        return self

    def stop(self, timeout=10.0):
        """Finishes the reconcile under way, then stops."""
        self._stop.set()
        self.queue.wake()
        self._thread.join(timeout)
        for informer in (self.jobs, self.pods, self.nodes, self.services):
            informer.join(0.1)

    def _loop(self):
        while not self._stop.is_set():
            now = time.monotonic()
            if now >= self._autoscale_at:
                self._autoscale_at = now + self.config.interval
                self._autoscale()
                continue
            key = self.queue.get(timeout=min(1.0, self._autoscale_at - now))
            if key is not None and not self._stop.is_set():
                self.reconcile(key)

    def _autoscale(self):
        jobs = self.jobs.objects()
        self._read_worlds(jobs)
        state = cluster_state(jobs, self.pods.objects(), self.nodes.objects(), self.clock())
        try:
            actions = list(self.plan(state, self.config))
        except Exception:  # noqa: BLE001  (a failing planner must not stop the operator)
            log.exception("the autoscaler failed; jobs keep their workers")
            return
        for job in jobs:
            mine = [a for a in actions if a.job == job_name(job)]
            if mine:
                for a in mine:
                    log.info("%s: %+d worker(s)%s: %s", a.job, a.delta,
                             f" on {a.node}" if a.node else "", a.reason)
                self.reconcile(object_key(job), mine)

    def _read_worlds(self, jobs):
        """The newest world of each running job, from the etcd its workers meet at (once per
        autoscaler pass; a job whose etcd does not answer keeps what its status says)."""
        for job in jobs:
            if (job.get("status") or {}).get("phase") != "Running":
                continue
            world = latest_world(job, (job.get("spec") or {}).get("etcd") or self.etcd)
            key = object_key(job)
            if world is not None and world != self._worlds.get(key):
                self._worlds[key] = world
                self.queue.add(key)

    def reconcile(self, key, actions=()):
        """Reconciles job ``key`` (namespace, name) with the autoscaler's ``actions``."""
        job = self.jobs.get(key)
        if job is None:
            self.queue.succeeded(key)
            return
        nodes = {n["metadata"]["name"] for n in self.nodes.objects()}
        pods = [p for p in self.pods.objects() if p["metadata"].get("namespace") == key[0]]
        services = [s for s in self.services.objects() if s["metadata"].get("namespace") == key[0]]
        ops = reconcile(job, pods, nodes, services, actions, now=self.clock(), etcd=self.etcd,
                        world=self._worlds.get(key))
        try:
            for op in ops:
                self.apply(op)
        except ApiException as e:
            delay = self.queue.failed(key)
            log.warning("%s/%s: %s %s (%s); again in %.1f s", key[0], key[1], e.status, e.reason,
                        (e.body or "")[:200] if isinstance(e.body, str) else "", delay)
            return
        self.queue.succeeded(key)

    def apply(self, op):
        """Carries out one Operation; a create that finds the object there and a delete that
        finds it gone have done their work."""
        log.debug("%s %s %s/%s", op.verb, op.kind, op.namespace, op.name)
        raw = {"_preload_content": False}
        try:
            if op.kind == "Pod" and op.verb == "create":
                self._take(self.pods, self.core.create_namespaced_pod(op.namespace, op.body, **raw))
            elif op.kind == "Pod" and op.verb == "delete":
                self.core.delete_namespaced_pod(op.name, op.namespace, **raw)
                self._mark_deleting(self.pods, op)
            elif op.kind == "Service" and op.verb == "create":
                self._take(self.services,
                           self.core.create_namespaced_service(op.namespace, op.body, **raw))
            elif op.kind == "Service" and op.verb == "delete":
                self.core.delete_namespaced_service(op.name, op.namespace, **raw)
                self._mark_deleting(self.services, op)
            elif op.kind == "SkiffJob":
                patch = (self.custom.patch_namespaced_custom_object_status
                         if op.verb == "patch_status" else
                         self.custom.patch_namespaced_custom_object)
                self._take(self.jobs, patch(GROUP, VERSION, op.namespace, PLURAL, op.name,
                                            op.body, _content_type=MERGE_PATCH, **raw))
            else:
                raise ValueError(f"no such operation: {op.verb} {op.kind}")
        except ApiException as e:
            if not ((op.verb == "create" and e.status == 409) or
                    (op.verb == "delete" and e.status == 404)):
                raise

    @staticmethod
    def _take(informer, response):
        obj = json.loads(response.data)
        if obj.get("metadata", {}).get("name"):
            informer.store(obj)

    @staticmethod
    def _mark_deleting(informer, op):
        obj = informer.get((op.namespace, op.name))
        if obj is not None and not obj["metadata"].get("deletionTimestamp"):
            informer.store({**obj, "metadata": {**obj["metadata"],
                                                "deletionTimestamp": "deleting"}})
