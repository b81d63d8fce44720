"""The controller's real client code against kmock's Kubernetes emulator (an in-memory API
server on 127.0.0.1, a free port; no kubelet, no scheduler: the test moves pods' phases and
binds them to nodes itself). A SkiffJob comes, the autoscaler (a scripted stand-in) admits
it and grows it; a deleted pod is replaced; the job's deletion removes its pods."""
import asyncio
import json
import shutil
import threading
import time

import pytest

kmock = pytest.importorskip("kmock")
from kubernetes import client as k8s  # noqa: E402

from operator_cluster_data import node, skiffjob  # noqa: E402
from skiff.cloud.autoscaler import Action, Config  # noqa: E402
from skiff import _C  # noqa: E402
from skiff.cloud.operator.controller import Controller  # noqa: E402
from skiff.distributed.etcd_server import LocalEtcd  # noqa: E402

JOBS = "skiff.dev/v1alpha1/skiffjobs"


class Emulator:
    """kmock's emulator served from a thread with its own event loop."""

    def __init__(self):
        self._ready, self._box = threading.Event(), {}
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True)

    async def _serve(self):
        async with kmock.KubernetesEmulator() as emulator, \
                kmock.Server(emulator, host="127.0.0.1") as server:
            for resource in ("v1/pods", "v1/nodes", "v1/services", JOBS):
                emulator.resources[resource] = {}
            self._box.update(url=str(server.url).rstrip("/"), stop=asyncio.Event(),
                             loop=asyncio.get_running_loop())
            self._ready.set()
            await self._box["stop"].wait()

    def __enter__(self):
        self._thread.start()
        assert self._ready.wait(10), "kmock did not start"
        configuration = k8s.Configuration()
        configuration.host = self._box["url"]
        self.api = k8s.ApiClient(configuration)
        return self

    def __exit__(self, *exc):
        self._box["loop"].call_soon_threadsafe(self._box["stop"].set)
        self._thread.join(5)


class ScriptedPlan:
    """The autoscaler's stand-in: hands out the queued actions once, then none."""

    def __init__(self):
        self.queued, self.states = [], []

    def __call__(self, state, config):
        self.states.append(state)
        actions, self.queued = self.queued, []
        return actions


def wait_for(predicate, timeout=10.0, what=""):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def worker_pods(core):
    pods = core.list_namespaced_pod("ml", _preload_content=False)
    return sorted(p["metadata"]["name"] for p in json.loads(pods.data)["items"])


@pytest.fixture
def etcd():
    """A real etcd (Debian's etcd-server) the workers would meet at; None without it."""
    if shutil.which("etcd") is None:
        yield None
        return
    with LocalEtcd() as server:
        yield server


def test_controller_against_kmock(etcd):
    plan = ScriptedPlan()
    endpoint = etcd.endpoint if etcd else "127.0.0.1:9"  # (nothing listens on port 9)
    with Emulator() as cluster:
        core, custom = k8s.CoreV1Api(cluster.api), k8s.CustomObjectsApi(cluster.api)
        for name in ("n1", "n2"):
            core.create_node(node(name), _preload_content=False)
        job = skiffjob(low=2, high=3)
        del job["metadata"]["finalizers"]
        custom.create_namespaced_custom_object("skiff.dev", "v1alpha1", "ml", "skiffjobs", job,
                                               _preload_content=False)
        plan.queued = [Action("ml/mnist", 2, placement={"n1": 1, "n2": 1}, reason="admit")]
        controller = Controller(cluster.api, plan, Config(interval=0.3), etcd=endpoint,
                                watch_timeout=2)
        controller.start(sync_timeout=10)
        try:
            wait_for(lambda: worker_pods(core) == ["mnist-worker-0", "mnist-worker-1"],
                     what="the admitted job's two workers")
            pod = core.read_namespaced_pod("mnist-worker-0", "ml", _preload_content=False)
            pod = json.loads(pod.data)
            owner = pod["metadata"]["ownerReferences"][0]
            assert (owner["kind"], owner["name"], owner["uid"]) == ("SkiffJob", "mnist",
                                                                    "uid-mnist")
            assert "--etcd" in pod["spec"]["containers"][0]["args"]
            stored = cluster_job(custom)
            assert stored["metadata"]["finalizers"] == ["skiff.dev/workers"]
            wait_for(lambda: (cluster_job(custom).get("status") or {}).get("workers", {}).get(
                "desired") == 2, what="the status' desired count")

            # the kubelet's part, by hand: both run
            for i, node_name in enumerate(("n1", "n2")):
                core.patch_namespaced_pod_status(
                    f"mnist-worker-{i}", "ml",
                    {"spec": {"nodeName": node_name}, "status": {"phase": "Running"}},
                    _content_type="application/merge-patch+json", _preload_content=False)
            wait_for(lambda: cluster_job(custom)["status"]["phase"] == "Running",
                     what="phase Running")
            wait_for(lambda: plan.states[-1].job("ml/mnist").placement == {"n1": 1, "n2": 1},
                     what="the autoscaler seeing both workers placed")

            # the workers form world 4 in etcd: the status shows it
            if etcd is not None:
                _C.EtcdClient(etcd.endpoint, timeout=5.0).put(
                    "/skiff/ml-mnist/world/4", json.dumps(["w0", "w1"]))
                wait_for(lambda: (cluster_job(custom)["status"].get("worldEpoch"),
                                  cluster_job(custom)["status"].get("worldSize")) == (4, 2),
                         what="status.worldEpoch")

            # a pod deleted: a worker leaving, replaced
            core.delete_namespaced_pod("mnist-worker-1", "ml", _preload_content=False)
            wait_for(lambda: worker_pods(core) == ["mnist-worker-0", "mnist-worker-1"],
                     what="the deleted worker's replacement")

            # the autoscaler grows the job, then shrinks it
            plan.queued = [Action("ml/mnist", 1, node="n2", reason="room")]
            wait_for(lambda: len(worker_pods(core)) == 3, what="a third worker")
            plan.queued = [Action("ml/mnist", -1, node="n1", reason="service")]
            wait_for(lambda: len(worker_pods(core)) == 2, what="back to two workers")
            assert "mnist-worker-0" not in worker_pods(core)  # the one on n1 went

            # the job deleted: the finalizer deletes its pods, then lets it go
            custom.delete_namespaced_custom_object("skiff.dev", "v1alpha1", "ml", "skiffjobs",
                                                   "mnist", _preload_content=False)
            wait_for(lambda: worker_pods(core) == [], what="the workers gone")
            wait_for(lambda: cluster_job(custom) is None, what="the job gone")
        finally:
            controller.stop()


def cluster_job(custom):
    try:
        return json.loads(custom.get_namespaced_custom_object(
            "skiff.dev", "v1alpha1", "ml", "skiffjobs", "mnist", _preload_content=False).data)
    except k8s.ApiException as e:
        if e.status == 404:
            return None
        raise
