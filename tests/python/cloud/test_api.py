"""The job service's API against a real service process and real jobs: every verb, the
states a job goes through, its output (bounded lines and total, bytes that are not UTF-8,
resuming a follow), the queue's order and quotas, two users kept apart, bad tokens and bad
input refused with a clear error and nothing written outside the job's folder."""
import http.client
import io
import json
import os
import tarfile
import time
import urllib.parse
import urllib.request

import pytest

from skiff.cloud import Client, CloudError
from skiff.cloud.client import _multipart


def write(folder, name, text):
    path = os.path.join(folder, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)

SLEEPER = "import time, sys\nprint('up', flush=True)\ntime.sleep(float(sys.argv[1]))\n"


def project(tmp_path, files):
    folder = tmp_path / f"project{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    for name, text in files.items():
        write(str(folder), name, text)
    return str(folder)


def wait_state(client, job_id, states, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        job = client.job(job_id)
        if job["state"] in states:
            return job
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} is {client.job(job_id)['state']}, not in {states}")


def raw_request(service, method, path, body=b"", headers=None):
    """(status, parsed JSON) of a request sent as given."""
    request = urllib.request.Request(service.url + path, data=body or None, method=method,
                                     headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return r.status, json.load(r)
    except urllib.error.HTTPError as e:
        return e.code, json.load(e)


def test_a_job_runs_through_its_states_and_its_output_comes_back(service, tmp_path):
    c = service.client("ada")
    folder = project(tmp_path, {"train.py": "import sys, os\nprint('hello', sys.argv[1:])\n"
                                            "print('job', os.environ['SKIFF_CLOUD_JOB'],"
                                            " os.environ['OMP_NUM_THREADS'])\n"
                                            "sys.exit(0)\n",
                                "data/x.txt": "1"})
    job = c.submit("train.py", args=["--lr", "0.1", "a b; rm -rf /"], directory=folder, cpus=2)
    assert job["state"] == "queued" and job["user"] == "ada"
    done = c.wait(job["id"], timeout=60)
    assert done["state"] == "succeeded" and done["exit_code"] == 0
    states = [e["detail"]["state"] for e in c.job(job["id"])["events"] if e["kind"] == "state"]
    assert states == ["queued", "starting", "running", "succeeded"]
    lines = [text for _, text in c.log(job["id"])["lines"]]
    # arguments reach the program as given, never through a shell
    assert lines == ["[rank 0] hello ['--lr', '0.1', 'a b; rm -rf /']",
                     f"[rank 0] job {job['id']} 2"]
    assert [j["id"] for j in c.jobs()] == [job["id"]]


def test_jobs_are_pinned_to_the_cpus_their_slots_hold(service, tmp_path):
    """Two one-CPU jobs at once run on different CPUs (where the machine has two); a job
    asking for more CPUs than the machine has gets all of them."""
    c = service.client("ada")
    folder = project(tmp_path, {"cpus.py": "import os, time\n"
                                           "print(sorted(os.sched_getaffinity(0)))\n"
                                           "time.sleep(2)\n"})
    machine = sorted(os.sched_getaffinity(0))
    first, second = (c.submit("cpus.py", directory=folder) for _ in range(2))
    whole = c.submit("cpus.py", directory=folder, cpus=4)
    pinned = []
    for job in (first, second, whole):
        assert c.wait(job["id"], timeout=60)["state"] == "succeeded"
        pinned.append(json.loads(c.log(job["id"])["lines"][0][1].removeprefix("[rank 0] ")))
    assert len(pinned[0]) == len(pinned[1]) == 1 and set(pinned[0]) <= set(machine)
    if len(machine) > 1:
        assert pinned[0] != pinned[1]
    assert pinned[2] == machine


def test_a_jobs_resource_use_is_sampled(service, tmp_path):
    c = service.client("ada")
    folder = project(tmp_path, {"busy.py": "import time\nblock = bytearray(64 << 20)\n"
                                           "end = time.process_time() + 1.5\n"
                                           "while time.process_time() < end: pass\n"})
    job = c.wait(c.submit("busy.py", directory=folder)["id"], timeout=60)
    usage = c.job(job["id"])["usage"]
    assert usage["cpu_seconds"] >= 1.4, usage      # the job's totals once it ended
    assert usage["peak_rss_mb"] >= 64, usage
    assert usage["processes"] == 0


def test_a_failing_job_keeps_its_exit_code_and_the_tail_of_its_log(service, tmp_path):
    c = service.client("ada")
    folder = project(tmp_path, {"fail.py": "import sys\nfor i in range(40): print('line', i)\n"
                                           "raise SystemExit(7)\n"})
    job = c.wait(c.submit("fail.py", directory=folder)["id"], timeout=60)
    assert job["state"] == "failed" and job["exit_code"] == 7
    assert job["log_tail"].splitlines()[-1] == "[rank 0] line 39"
    assert len(job["log_tail"].splitlines()) == 30


def test_follow_streams_live_and_resumes_where_it_stopped(service, tmp_path):
    c = service.client("ada")
    folder = project(tmp_path, {"count.py": "import time\nfor i in range(30):\n"
                                            "    print(i, flush=True); time.sleep(0.03)\n"})
    job = c.submit("count.py", directory=folder)
    got = []
    stream = c.follow(job["id"])
    for number, line in stream:
        got.append((number, line))
        if number == 9:
            break
    stream.close()
    rest = list(c.follow(job["id"], first=10))  # a new connection from line 10
    numbers = [n for n, _ in got + rest]
    assert numbers == list(range(30))
    assert [line for _, line in got + rest] == [f"[rank 0] {i}" for i in range(30)]
    # SSE's own resume header: Last-Event-ID 27 gives lines 28 and 29, then the end
    req = urllib.request.Request(f"{service.url}/api/jobs/{job['id']}/log/stream",
                                 headers={"Authorization": f"Bearer {c.token}",
                                          "Last-Event-ID": "27"})
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
    assert "id: 28\ndata: [rank 0] 28\n\n" in text and "id: 27" not in text
    assert "event: end" in text and '"state": "succeeded"' in text


def test_output_that_is_not_utf8_long_lines_and_too_much_output(service_factory, tmp_path):
    service = service_factory("--slots", "2", "--line-limit", "100", "--log-limit", "2000")
    c = service.client("ada")
    folder = project(tmp_path, {"noisy.py":
                                "import sys\nsys.stdout.buffer.write(b'bad \\xff\\xfe bytes\\n')\n"
                                "print('x' * 500)\nprint('progress 1\\rprogress 2')\n"
                                "for i in range(1000): print('spam', i)\n"})
    job = c.wait(c.submit("noisy.py", directory=folder)["id"], timeout=60)
    assert job["state"] == "succeeded"
    lines = [text for _, text in c.log(job["id"], count=5000)["lines"]]
    assert lines[0] == "[rank 0] bad \ufffd\ufffd bytes"
    assert lines[1] == "[rank 0] " + "x" * 100 + " [line cut at 100 bytes]"
    assert lines[2:4] == ["[rank 0] progress 1", "[rank 0] progress 2"]
    assert lines[-1].startswith("[skiff cloud] the log is cut here")
    assert os.path.getsize(os.path.join(service.root, "jobs", str(job["id"]), "log")) <= 2000


def test_cancel_a_running_and_a_queued_job(service_factory, tmp_path):
    service = service_factory("--slots", "1")
    c = service.client("ada")
    folder = project(tmp_path, {"sleep.py": SLEEPER})
    running = c.submit("sleep.py", args=["60"], directory=folder)
    queued = c.submit("sleep.py", args=["60"], directory=folder)
    wait_state(c, running["id"], ["running"])
    assert c.job(queued["id"])["state"] == "queued"  # one slot, taken
    assert c.cancel(queued["id"])["state"] == "cancelled"
    c.cancel(running["id"])
    job = wait_state(c, running["id"], ["cancelled"], timeout=30)
    assert job["reason"] == "cancelled"
    assert c.cancel(running["id"])["state"] == "cancelled"  # again: nothing changes


def test_queue_order_is_priority_then_submission(service_factory, tmp_path):
    service = service_factory("--slots", "1")
    c = service.client("ada")
    folder = project(tmp_path, {"sleep.py": SLEEPER})
    first = c.submit("sleep.py", args=["1"], directory=folder)
    wait_state(c, first["id"], ["running"])
    low = c.submit("sleep.py", args=["0"], directory=folder, priority=0)
    high = c.submit("sleep.py", args=["0"], directory=folder, priority=5)
    for j in (first, low, high):
        c.wait(j["id"], timeout=60)
    started = {j["id"]: c.job(j["id"])["started"] for j in (low, high)}
    assert started[high["id"]] < started[low["id"]]


def test_a_users_running_jobs_are_bounded_by_their_quota(service_factory, tmp_path):
    service = service_factory("--slots", "4", "--quota-jobs", "1")
    ada, bob = service.client("ada"), service.client("bob")
    folder = project(tmp_path, {"sleep.py": SLEEPER})
    a1 = ada.submit("sleep.py", args=["60"], directory=folder)
    wait_state(ada, a1["id"], ["running"])
    a2 = ada.submit("sleep.py", args=["0"], directory=folder)
    b1 = bob.submit("sleep.py", args=["0"], directory=folder)
    assert bob.wait(b1["id"], timeout=60)["state"] == "succeeded"  # bob is not held up
    assert ada.job(a2["id"])["state"] == "queued"                   # ada's second waits
    ada.cancel(a1["id"])
    assert ada.wait(a2["id"], timeout=60)["state"] == "succeeded"


def test_two_users_are_kept_apart_and_an_admin_sees_all(service, tmp_path):
    ada, bob = service.client("ada"), service.client("bob")
    root = service.client("root", admin=True)
    folder = project(tmp_path, {"a.py": "print('secret')\n"})
    job = ada.wait(ada.submit("a.py", directory=folder, keep=["a.py"])["id"], timeout=60)
    for call in (lambda: bob.job(job["id"]), lambda: bob.cancel(job["id"]),
                 lambda: bob.log(job["id"]), lambda: bob.artifacts(job["id"]),
                 lambda: list(bob.follow(job["id"])),
                 lambda: bob.jobs(user="ada")):
        with pytest.raises(CloudError) as e:
            call()
        assert e.value.status == 403
    assert bob.jobs() == []
    assert [j["id"] for j in root.jobs(user="ada")] == [job["id"]]
    assert root.log(job["id"])["lines"] == [[0, "[rank 0] secret"]]
    with pytest.raises(CloudError) as e:
        ada.job(9999)
    assert e.value.status == 404


def test_bad_tokens_are_refused(service):
    for headers in ({}, {"Authorization": "Bearer skc_not_a_token"},
                    {"Authorization": "Basic abc"}):
        status, body = raw_request(service, "GET", "/api/jobs", headers=headers)
        assert status == 401 and "token" in body["error"]
    assert raw_request(service, "GET", "/api/health")[0] == 200


def _tar_bytes(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data, link in members:
            info = tarfile.TarInfo(name)
            if link:
                info.type, info.linkname = tarfile.SYMTYPE, link
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _submit_raw(service, token, spec, archive=None):
    fields = {"spec": (None, json.dumps(spec).encode(), "application/json")}
    if archive is not None:
        fields["archive"] = ("a.tar.gz", archive, "application/gzip")
    ctype, body = _multipart(fields)
    return raw_request(service, "POST", "/api/jobs", body,
                       {"Authorization": f"Bearer {token}", "Content-Type": ctype})


@pytest.mark.parametrize("spec, archive, words", [
    ({"script": "a.py", "bogus": 1}, None, ["unknown field", "bogus"]),
    ({"script": "a.py", "workers": -2}, None, ["workers", "at least 1"]),
    ({"script": "a.py", "workers": "3:1"}, None, ["MIN 3 is above MAX 1"]),
    ({"script": "a.py", "nproc": 64}, None, ["needs 64 slots", "has 4"]),
    ({"script": "missing.py"}, [("a.py", b"", None)], ["missing.py", "not a file"]),
    ({"script": "a.py"}, [("a.py", b"", None), ("../../escape.py", b"x", None)],
     ["bad archive", "'..'"]),
    ({"script": "a.py"}, [("a.py", b"", None), ("/tmp/abs.py", b"x", None)],
     ["bad archive", "absolute"]),
    ({"script": "a.py"}, [("a.py", b"", None), ("out", None, "/etc")],
     ["bad archive", "link"]),
])
def test_bad_submissions_are_refused_and_nothing_is_kept(service, spec, archive, words):
    token = service.token("ada")
    status, body = _submit_raw(service, token, spec,
                               _tar_bytes(archive) if archive is not None else None)
    assert status == 400, body
    for word in words:
        assert word in body["error"]
    assert os.listdir(os.path.join(service.root, "jobs")) == []
    assert os.listdir(os.path.join(service.root, "incoming")) == []
    assert Client(service.url, token).jobs() == []


def test_uploads_over_the_limit_are_refused_without_reading_them(service_factory):
    service = service_factory("--slots", "2", "--max-upload", str(1 << 20))
    token = service.token("ada")
    # a 2 MB archive: refused while it streams in
    status, body = _submit_raw(service, token, {"script": "a.py"}, os.urandom(2 << 20))
    assert status == 413 and "limit" in body["error"]
    # a request that says it carries 1 GB: refused from its headers, the body never sent
    conn = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
    conn.putrequest("POST", "/api/jobs")
    conn.putheader("Authorization", f"Bearer {token}")
    conn.putheader("Content-Type", "multipart/form-data; boundary=x")
    conn.putheader("Content-Length", str(1 << 30))
    conn.endheaders()
    response = conn.getresponse()
    assert response.status == 413 and "1073741824" in json.load(response)["error"]
    conn.close()
    assert os.listdir(os.path.join(service.root, "incoming")) == []


def test_artifacts_are_the_kept_files_only(service, tmp_path):
    c = service.client("ada")
    folder = project(tmp_path, {"save.py": "import os\nos.makedirs('ckpt', exist_ok=True)\n"
                                           "open('ckpt/model.bin', 'wb').write(b'w' * 10)\n"
                                           "open('other.txt', 'w').write('not kept')\n"
                                           "os.symlink('/etc/passwd', 'ckpt/passwd')\n"})
    job = c.wait(c.submit("save.py", directory=folder, keep=["ckpt"])["id"], timeout=60)
    assert job["state"] == "succeeded", job["log_tail"]
    assert c.artifacts(job["id"]) == [{"path": "ckpt/model.bin", "size": 10}]
    dest = c.download(job["id"], "ckpt/model.bin", str(tmp_path / "dl" / "model.bin"))
    assert open(dest, "rb").read() == b"w" * 10
    for path in ("other.txt", "ckpt/passwd", "../../cloud.db", "ckpt/../../../cloud.db"):
        with pytest.raises(CloudError) as e:
            c.download(job["id"], path, str(tmp_path / "x"))
        assert e.value.status == 404
    quoted = urllib.parse.quote("../cloud.db", safe="")
    status, _ = raw_request(service, "GET", f"/api/jobs/{job['id']}/artifacts/{quoted}",
                            headers={"Authorization": f"Bearer {c.token}"})
    assert status == 404


def test_a_module_job_with_several_processes(service, tmp_path):
    c = service.client("ada")
    folder = project(tmp_path, {"pkg/__init__.py": "",
                                "pkg/main.py": "import os\nprint('rank', os.environ['SKIFF_RANK'],"
                                               " 'of', os.environ['SKIFF_WORLD_SIZE'])\n"})
    job = c.wait(c.submit(module="pkg.main", directory=folder, nproc=2)["id"], timeout=120)
    assert job["state"] == "succeeded", job["log_tail"]
    lines = sorted(text for _, text in c.log(job["id"])["lines"])
    assert lines == ["[rank 0] rank 0 of 2", "[rank 1] rank 1 of 2"]
