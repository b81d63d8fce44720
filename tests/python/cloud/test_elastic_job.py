"""An elastic job on the local backend (workers MIN:MAX): its launchers meet in an etcd
that the job's runner starts, the worlds its workers form become the job's membership
events (and lines of its log), and a worker killed mid-job is replaced: the world
re-forms and the job succeeds."""
import os
import shutil
import signal
import time

import psutil
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
pytestmark = pytest.mark.skipif(shutil.which("etcd") is None,
                                reason="no etcd binary (Debian's etcd-server)")


@pytest.fixture
def service(service_factory):
    """(without the autoscaler: the jobs keep the workers they start with)"""
    return service_factory("--slots", "4", "--autoscale", "off")


def membership(client, job_id):
    return [e["detail"] for e in client.job(job_id)["events"] if e["kind"] == "membership"]


def test_an_elastic_job_survives_a_killed_worker(service, tmp_path):
    client = service.client("ada")
    shutil.copy(os.path.join(HERE, "jobs", "elastic_job.py"), tmp_path)
    job = client.submit("elastic_job.py", args=["6"], directory=str(tmp_path), workers="2:3")
    deadline = time.monotonic() + 120
    while not membership(client, job["id"]):
        assert time.monotonic() < deadline, client.log(job["id"])
        assert client.job(job["id"])["state"] in ("queued", "starting", "running"), \
            client.job(job["id"])
        time.sleep(0.2)
    first = membership(client, job["id"])[0]
    assert first["workers"] == 2 and first["change"] == "formed"
    # a worker of the job (a process running its script, not a launcher) killed mid-job
    script = os.path.join(service.root, "jobs", str(job["id"]), "work", "elastic_job.py")
    workers = [p for p in psutil.process_iter(["cmdline"])
               if script in (p.info["cmdline"] or [])
               and "skiff.distributed.launch" not in (p.info["cmdline"] or [])]
    assert len(workers) == 2, [p.info["cmdline"] for p in workers]
    time.sleep(1.0)
    workers[0].send_signal(signal.SIGKILL)
    final = client.wait(job["id"], timeout=240)
    lines = [text for _, text in client.log(job["id"], count=10000)["lines"]]
    assert final["state"] == "succeeded", "\n".join(lines[-40:])
    worlds = membership(client, job["id"])
    assert len(worlds) >= 2 and [w["epoch"] for w in worlds] == sorted(w["epoch"] for w in worlds)
    # each world says the step it resumed training at: the first at 0, a later one past it
    assert worlds[0]["step"] == 0, worlds
    assert any(w.get("step", 0) > 0 for w in worlds[1:]), worlds
    assert any(line.startswith("[skiff cloud] world ") for line in lines)
    assert any(line.startswith("[worker 0.0] ") for line in lines)
    assert any(line.startswith("[worker 1.0] ") for line in lines)


def test_the_job_page_shows_the_membership_changes(service, tmp_path):
    """The timeline of the elastic job's page lists its worlds."""
    sync_api = pytest.importorskip("playwright.sync_api")
    chromium = os.environ.get("SKIFF_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(chromium):
        pytest.skip(f"no Chromium at {chromium} (Debian package 'chromium')")
    client = service.client("ada")
    shutil.copy(os.path.join(HERE, "jobs", "elastic_job.py"), tmp_path)
    job = client.wait(client.submit("elastic_job.py", args=["2"], directory=str(tmp_path),
                                    workers="2:3")["id"], timeout=180)
    assert job["state"] == "succeeded", job["log_tail"]
    assert membership(client, job["id"])[0]["workers"] == 2
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(service.url + "/")
            page.evaluate(f"localStorage.setItem('skiff.cloud.token', '{client.token}')")
            page.goto(f"{service.url}/#/jobs/{job['id']}")
            page.reload()  # the page reads the token when it loads
            page.locator("#timeline .event-membership").first.wait_for(timeout=30000)
            text = page.locator("#timeline .event-membership").first.inner_text()
            assert "world 1 formed: 2 workers" in text
        finally:
            browser.close()
