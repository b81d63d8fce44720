"""The command line against a real service: a real training job (W3, data-parallel on two
workers) submitted with --follow, its output live and its exit code and board logs kept;
and the service killed with SIGKILL mid-job and started again: the job is re-adopted and
its follower gets every line once, in order."""
import os
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

PYTHONPATH = os.pathsep.join(p for p in sys.path if p)
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "..", "..", "examples")


def cli(service, token, *args, **popen):
    env = dict(os.environ, PYTHONPATH=PYTHONPATH, SKIFF_CLOUD_URL=service.url,
               SKIFF_CLOUD_TOKEN=token)
    return subprocess.Popen([sys.executable, "-m", "skiff.cloud", *args], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)


def test_submit_follow_runs_w3_on_two_workers(service_factory, tmp_path):
    service = service_factory("--slots", "2")
    token = service.token("ada")
    folder = tmp_path / "w3"
    folder.mkdir()
    shutil.copy(os.path.join(HERE, "jobs", "w3_data_parallel.py"), folder)
    shutil.copy(os.path.join(EXAMPLES, "fashion_mnist.py"), folder)
    started = time.monotonic()
    p = cli(service, token, "submit", "w3_data_parallel.py", "--workers", "2", "--dir",
            str(folder), "--board-logdir", "runs", "--follow", "--", "200")
    arrivals = []
    for line in p.stdout:
        arrivals.append((time.monotonic() - started, line.rstrip("\n")))
    code = p.wait(timeout=600)
    err = p.stderr.read()
    assert code == 0, err
    lines = [text for _, text in arrivals]
    assert "[rank 0] rank 0 of 2 starting" in lines and "[rank 1] rank 1 of 2 starting" in lines
    assert "[rank 0] step 190 loss" in " ".join(lines)
    first_line, last_line = arrivals[0][0], arrivals[-1][0]
    print(f"W3 job: first line after {first_line:.2f} s, last after {last_line:.2f} s")
    assert last_line - first_line > 1.0  # lines came while the job ran, not at its end
    job_id = int(err.split("job ")[1].split()[0])
    client = service.client("ada")
    files = [f["path"] for f in client.artifacts(job_id)]
    assert any(f.startswith("runs/") for f in files), files
    board = client.board(job_id)  # skiff board on the job's logdir, started on demand
    assert board.startswith("http://127.0.0.1:") and client.board(job_id) == board
    with urllib.request.urlopen(board, timeout=30) as page:
        assert page.status == 200 and b"<html" in page.read().lower()
    with urllib.request.urlopen(board.rstrip("/") + "/api/runs", timeout=30) as runs:
        assert runs.status == 200


def test_submit_follow_exits_with_the_jobs_exit_code(service, tmp_path):
    token = service.token("ada")
    (tmp_path / "fail.py").write_text("print('about to fail', flush=True)\nraise SystemExit(7)\n")
    p = cli(service, token, "submit", "fail.py", "--dir", str(tmp_path), "--follow")
    out, err = p.communicate(timeout=120)
    assert p.returncode == 7, err
    assert out.splitlines() == ["[rank 0] about to fail"]
    assert "failed (exit code 7)" in err
    job_id = int(err.split("job ")[1].split()[0])
    try:
        service.client("ada").board(job_id)
        raise AssertionError("a job without board_logdir has no board")
    except Exception as e:
        assert "has no board_logdir" in str(e)
    bad = cli(service, "skc_wrong", "list")
    _, err = bad.communicate(timeout=60)
    assert bad.returncode == 2 and "a valid token is needed" in err


def test_a_killed_service_re_adopts_its_running_job(service, tmp_path):
    (tmp_path / "count.py").write_text(
        "import time\nfor i in range(300):\n    print(f'line {i}', flush=True)\n"
        "    time.sleep(0.02)\n")
    client = service.client("ada")
    job = client.submit("count.py", directory=str(tmp_path))
    got, result = [], {}

    def follow():
        stream = client.follow(job["id"], reconnect_for=60)
        while True:
            try:
                got.append(next(stream))
            except StopIteration as end:
                result.update(end.value)
                return

    follower = threading.Thread(target=follow)
    follower.start()
    deadline = time.monotonic() + 60
    while len(got) < 50 and time.monotonic() < deadline:
        time.sleep(0.02)
    service.kill()                 # mid-job, without a chance to clean up
    time.sleep(0.5)
    service.start()                # same root, same port
    follower.join(timeout=120)
    assert result["state"] == "succeeded"
    assert [n for n, _ in got] == list(range(300))  # no gap, no line twice
    assert [text for _, text in got] == [f"[rank 0] line {i}" for i in range(300)]
    events = client.job(job["id"])["events"]
    assert any(e["kind"] == "note" and "re-adopted" in e["detail"]["text"] for e in events)
