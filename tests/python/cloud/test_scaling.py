"""The job service drives the autoscaler over this machine's slots: an elastic job grows
into idle slots, shrinks when a service declares demand (which is granted as the job's
workers leave) and grows back when the demand falls, its world re-forming each time
without a restart; the job succeeds. Services are declared by admins only."""
import os
import shutil
import time

import pytest

from skiff.cloud import CloudError

HERE = os.path.dirname(os.path.abspath(__file__))


def sizes(client, job_id):
    """The job's sizes the autoscaler set, in order (its scaling events)."""
    return [e["detail"]["workers"] for e in client.job(job_id)["events"]
            if e["kind"] == "scaling"]


def worlds(client, job_id):
    return [e["detail"] for e in client.job(job_id)["events"] if e["kind"] == "membership"]


def wait_for(what, check, timeout=90):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        assert time.monotonic() < deadline, f"gave up waiting for {what}"
        time.sleep(0.2)


@pytest.mark.skipif(shutil.which("etcd") is None, reason="no etcd binary (etcd-server)")
def test_an_elastic_job_follows_the_services_demand(service_factory, tmp_path):
    service = service_factory("--slots", "3", "--scale-interval", "0.5",
                              "--scale-cooldown", "2")
    admin = service.client("root", admin=True)
    shutil.copy(os.path.join(HERE, "jobs", "elastic_job.py"), tmp_path)
    job = admin.submit("elastic_job.py", args=["40"], directory=str(tmp_path), workers="1:3")
    wait_for("the job to grow into the idle slots", lambda: sizes(admin, job["id"])[-1:] == [3])
    assert admin.job(job["id"])["workers"] == 3
    wait_for("a world of 3", lambda: 3 in [w["workers"] for w in worlds(admin, job["id"])])

    web = admin.set_service("web", demand=2, cpus=1)
    assert web["demand"] == 2
    wait_for("the service's pods to be granted",
             lambda: admin.services()[0]["granted"] == 2)
    assert sizes(admin, job["id"])[-1] == 1 and admin.job(job["id"])["workers"] == 1

    admin.set_service("web", demand=0, cpus=1)
    wait_for("the job to grow back", lambda: sizes(admin, job["id"])[-1] == 3)
    assert admin.services()[0]["granted"] == 0

    final = admin.wait(job["id"], timeout=240)
    lines = [text for _, text in admin.log(job["id"], count=10000)["lines"]]
    assert final["state"] == "succeeded", "\n".join(lines[-30:])
    changes = [w["change"] for w in worlds(admin, job["id"])]
    assert "grew" in changes and "shrank" in changes, changes
    assert any("scaling to 1 workers (from 3)" in line for line in lines)


def test_services_are_declared_by_admins_with_checked_values(service):
    user, admin = service.client("ada"), service.client("root", admin=True)
    with pytest.raises(CloudError) as refused:
        user.set_service("web", 1)
    assert refused.value.status == 403
    for name, demand, cpus, what in [("web", -1, 1, "demand"), ("web", 1, 0, "cpus"),
                                     ("web", 1, 99, "cpus"), ("-web", 1, 1, "service name"),
                                     ("web", 1.5, 1, "demand")]:
        with pytest.raises(CloudError) as refused:
            admin._json("PUT", f"/api/services/{name}",
                        f'{{"demand": {demand}, "cpus": {cpus}}}'.encode(), "application/json")
        assert refused.value.status == 400 and what in refused.value.message
    with pytest.raises(CloudError) as refused:
        admin._json("PUT", "/api/services/web", b'{"demand": 1, "pods": 2}', "application/json")
    assert refused.value.status == 400
    assert admin.set_service("web", 2, cpus=0.5)["cpus"] == 0.5
    assert [s["name"] for s in user.services()] == ["web"]
    wait_for("the pods granted", lambda: admin.services()[0]["granted"] == 2, timeout=20)
    admin.remove_service("web")
    assert admin.services() == []
    with pytest.raises(CloudError) as refused:
        admin.remove_service("web")
    assert refused.value.status == 404
