"""The operator's reconcile as table tests on cluster states given as data: each case is
the observed state and the autoscaler's actions, and the operations expected; every case
is then applied and reconciled again, which must give no operations (level-triggered)."""
import pytest

from operator_cluster_data import apply, node, skiffjob, worker
from skiff.cloud.autoscaler import Action
from skiff.cloud.operator import reconcile
from skiff.cloud.operator.cluster import cluster_state
from skiff.cloud.operator.spec import InvalidJob, read_spec

NODES = {"n1", "n2"}


def service(job):
    from skiff.cloud.operator import job_service  # noqa: PLC0415
    return job_service(job)


def summary(ops):
    return [(op.verb, op.kind, op.name) for op in ops]


def settle(job, pods, services, ops, nodes=NODES):
    """Applies ``ops``, then reconciles the result with no new actions."""
    job, pods, services = apply(job, pods, services, ops)
    return (job, pods, services), ([] if job is None else reconcile(
        job, pods, nodes, services, now=2000.0))


J = skiffjob()
J0 = skiffjob()
J2 = skiffjob(desired=2, phase="Running")
J3 = skiffjob(desired=3, phase="Running")
RUN2 = [worker(J, 0), worker(J, 1, node="n2")]

CASES = {
    # name: (job, pods, services, actions, nodes, expected operations)
    "new job, no decision yet: finalizer kept, Service made, status Pending": (
        J0, [], [], [], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("create", "Service", "mnist")]),
    "new job admitted at its minimum: two pods": (
        J0, [], [service(J)], [Action("ml/mnist", 2, placement={"n1": 1, "n2": 1})], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("create", "Pod", "mnist-worker-0"),
         ("create", "Pod", "mnist-worker-1")]),
    "scale up by one: one pod added, none restarted": (
        J2, RUN2, [service(J)], [Action("ml/mnist", 1, node="n2")], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("create", "Pod", "mnist-worker-2")]),
    "scale down by one on n2: n2's pod goes": (
        J3, RUN2 + [worker(J, 2)], [service(J)], [Action("ml/mnist", -1, node="n2")], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("delete", "Pod", "mnist-worker-1")]),
    "scale down below the minimum is held at the minimum": (
        J2, RUN2, [service(J)], [Action("ml/mnist", -1, node="n1")], NODES, []),
    "a failed pod is kept (its logs) and replaced": (
        J2, [worker(J, 0), worker(J, 1, phase="Failed")], [service(J)], [], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("create", "Pod", "mnist-worker-2")]),
    "a lost node: its pod is deleted and replaced": (
        J2, [worker(J, 0), worker(J, 1, node="gone")], [service(J)], [], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("delete", "Pod", "mnist-worker-1"),
         ("create", "Pod", "mnist-worker-2")]),
    "an evicted pod is a worker leaving: deleted, replaced": (
        J2, [worker(J, 0), worker(J, 1, phase="Failed", reason="Evicted")], [service(J)], [],
        NODES, [("patch_status", "SkiffJob", "mnist"), ("delete", "Pod", "mnist-worker-1"),
                ("create", "Pod", "mnist-worker-2")]),
    "more failures than maxRestarts: the job fails, its workers stop": (
        skiffjob(desired=2, phase="Running", maxRestarts=1),
        [worker(J, 0), worker(J, 1, phase="Failed"), worker(J, 2, phase="Failed")],
        [service(J)], [], NODES,
        [("patch_status", "SkiffJob", "mnist"), ("delete", "Pod", "mnist-worker-0")]),
    "a worker exited 0 while another runs: finishing, nothing new": (
        J2, [worker(J, 0, phase="Succeeded"), worker(J, 1)], [service(J)], [], NODES, []),
    "every worker exited 0: succeeded": (
        J2, [worker(J, 0, phase="Succeeded"), worker(J, 1, phase="Succeeded")], [service(J)],
        [], NODES, [("patch_status", "SkiffJob", "mnist")]),
    "deleted job: pods and Service deleted, finalizer stays": (
        skiffjob(desired=2, deleting=True), RUN2, [service(J)], [], NODES,
        [("delete", "Pod", "mnist-worker-0"), ("delete", "Pod", "mnist-worker-1"),
         ("delete", "Service", "mnist")]),
    "deleted job with nothing left: the finalizer goes": (
        skiffjob(desired=2, deleting=True), [], [], [], NODES,
        [("patch", "SkiffJob", "mnist")]),
    "a job without the finalizer gets it": (
        {**J2, "metadata": {**J2["metadata"], "finalizers": []}}, RUN2, [service(J)], [],
        NODES, [("patch", "SkiffJob", "mnist")]),
    "an invalid job (min above max) fails without pods": (
        skiffjob(low=3, high=2), [], [], [], NODES, [("patch_status", "SkiffJob", "mnist")]),
}


@pytest.mark.parametrize("case", list(CASES))
def test_reconcile_table(case):
    job, pods, services, actions, nodes, expected = CASES[case]
    # the status as this state gives it when the phase stays, so that only the case's
    # change shows in the expected operations
    base = [o for o in reconcile(job, pods, nodes, services, now=1000.0)
            if o.verb == "patch_status"]
    if job.get("status") and base and base[0].body["status"]["phase"] == job["status"]["phase"]:
        job = apply(job, pods, services, base)[0]
    ops = reconcile(job, pods, nodes, services, actions, now=1000.0)
    assert summary(ops) == expected
    assert reconcile(job, pods, nodes, services, actions, now=1000.0) == ops  # same state
    if not job["metadata"].get("deletionTimestamp"):  # (deletion: test_deletion_runs_...)
        _, again = settle(job, pods, services, ops, nodes)
        assert again == [], summary(again)


def test_new_workers_run_skiff_launch_with_the_jobs_bounds():
    ops = reconcile(J0, [], NODES, [service(J)], [Action("ml/mnist", 2, placement={"n2": 2})],
                    now=0.0, etcd="etcd:2379")
    pod = ops[1].body
    args = pod["spec"]["containers"][0]["args"]
    assert pod["spec"]["containers"][0]["command"] == ["python", "-m",
                                                       "skiff.distributed.launch"]
    assert args[:8] == ["--nnodes", "2:4", "--nproc_per_node", "1", "--etcd", "etcd:2379",
                        "--job_id", "ml-mnist"]
    assert args[-3:] == ["train.py", "--epochs", "3"]
    assert pod["metadata"]["ownerReferences"][0]["uid"] == "uid-mnist"
    affinity = pod["spec"]["affinity"]["nodeAffinity"]
    assert affinity["preferredDuringSchedulingIgnoredDuringExecution"][0]["preference"][
        "matchFields"][0]["values"] == ["n2"]
    assert ops[0].body["status"]["workers"]["desired"] == 2


def test_deletion_runs_to_the_end():
    state = (skiffjob(desired=2, deleting=True), RUN2, [service(J)])
    for _ in range(3):
        ops = reconcile(*state[:2], NODES, state[2], now=0.0)
        state = apply(*state, ops)
        if state[0] is None:
            break
    assert state == (None, [], [])


@pytest.mark.parametrize("spec, message", [
    ({"workers": {"min": 3, "max": 2}}, "above max"),
    ({"workers": {"min": -1, "max": 2}}, "at least 1"),
    ({"nprocPerWorker": 0}, "at least 1"),
    ({"command": []}, "command"),
    ({"policy": "fifo"}, "policy"),
    ({"resources": {"requests": {"cpu": "lots"}}}, "quantity"),
])
def test_invalid_specs_are_rejected(spec, message):
    with pytest.raises(InvalidJob, match=message):
        read_spec(skiffjob(**spec))


def test_cluster_state_counts_free_resources_jobs_and_waiting_services():
    web = {"metadata": {"name": "web-1", "namespace": "default", "ownerReferences": [
        {"kind": "ReplicaSet", "name": "web-7d", "controller": True}]},
        "spec": {"priority": 1000, "containers": [
            {"name": "nginx", "resources": {"requests": {"cpu": "500m", "memory": "128Mi"}}}]},
        "status": {"phase": "Pending"}}
    state = cluster_state([J2], RUN2 + [web], [node("n1"), node("n2", cpu="4")], now=5.0)
    assert [(n.name, n.free.cpu, n.free.memory) for n in state.nodes] == [
        ("n1", 6.0, 28.0), ("n2", 2.0, 28.0)]
    (job,) = state.jobs
    assert (job.name, job.min_workers, job.max_workers, job.workers) == ("ml/mnist", 2, 4, 2)
    assert dict(job.placement) == {"n1": 1, "n2": 1} and job.worker.cpu == 2.0
    (svc,) = state.services
    assert (svc.name, svc.demand, svc.pods, svc.pod.cpu, svc.priority) == (
        "default/ReplicaSet/web-7d", 1, 0, 0.5, 1000)


def test_the_newest_world_goes_into_the_status_once():
    """The world the workers formed (read from etcd by the controller) is status.worldEpoch
    and worldSize; reconciling again with the same world changes nothing."""
    (job, pods, services), _ = settle(J2, RUN2, [service(J)], [])
    ops = reconcile(job, pods, NODES, services, now=3000.0, world=(7, 2))
    assert summary(ops) == [("patch_status", "SkiffJob", "mnist")]
    status = ops[0].body["status"]
    assert (status["worldEpoch"], status["worldSize"]) == (7, 2)
    job, pods, services = apply(job, pods, services, ops)
    assert reconcile(job, pods, NODES, services, now=3001.0, world=(7, 2)) == []
    assert reconcile(job, pods, NODES, services, now=3002.0) == []  # unknown: kept as it is
