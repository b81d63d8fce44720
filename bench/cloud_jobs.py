"""The job service side by side with Ray's job API (bench/README.md, "skiff cloud"), on this
machine, 127.0.0.1 only:

  first_line  submit -> the first line of output on a follower, for a script that prints
              at once: skiff (Client.submit + Client.follow) vs Ray (JobSubmissionClient
              .submit_job + tail_job_logs on a local head started here); --reps of each,
              median and best
  stream      a job printing --lines lines of 100 bytes as fast as it can, followed by 1 and
              by 20 concurrent followers: lines/s each follower received, and the service's
              peak memory (VmHWM) while the log flowed
  list        GET /api/jobs (a page of 50) with 10,000 jobs in the database, at a bounded
              200 requests/s for --seconds: p50 / p99 latency

    python bench/cloud_jobs.py [--parts first_line,stream,list] [--reps 10]
                               [--lines 2000000] [--seconds 10] [--no-ray]

Ray (PyPI ray[default], requirements/bench.txt) is skipped when it is not installed.
Prints one line per result: "RESULT <part> <system> <value> <unit>"."""
import argparse
import asyncio
import concurrent.futures
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.environ.get("SKIFF_BUILD_DIR",
                                               os.path.join(HERE, "..", "build")), "python"))

from skiff.cloud import Client  # noqa: E402
from skiff.cloud.store import Store  # noqa: E402

PRINT_AT_ONCE = "print('first line', flush=True)\n"
PYTHONPATH = os.pathsep.join(p for p in sys.path if p)


def result(part, system, value, unit):
    print(f"RESULT {part} {system} {value:.4g} {unit}", flush=True)


class SkiffService:
    def __init__(self, root, slots=4):
        self.root = root
        env = dict(os.environ, PYTHONPATH=PYTHONPATH)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "skiff.cloud", "serve", "--root", root, "--port", "0",
             "--slots", str(slots), "--log-limit", str(4 << 30)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
        line = self.process.stdout.readline()
        self.url = re.search(r"at (http://\S+)", line).group(1)
        store = Store(os.path.join(root, "cloud.db"))
        self.token = store.create_user("bench")
        store.close()
        self.client = Client(self.url, self.token)

    def peak_rss_mb(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


def skiff_first_line(service, folder, reps):
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        job = service.client.submit("job.py", directory=folder)
        for _number, _line in service.client.follow(job["id"]):
            times.append(time.perf_counter() - start)
            break
        service.client.wait(job["id"], timeout=60)
    return times


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RayHead:
    """A local Ray head (dashboard and job server on 127.0.0.1) for the peer's rows."""

    def __enter__(self):
        from ray.job_submission import JobSubmissionClient  # noqa: PLC0415  (optional peer)
        self.ray = os.path.join(os.path.dirname(sys.executable), "ray")
        port, dash = free_port(), free_port()
        self.temp = tempfile.mkdtemp(prefix="rayb")
        subprocess.run([self.ray, "start", "--head", f"--port={port}",
                        "--node-ip-address=127.0.0.1", "--dashboard-host=127.0.0.1",
                        f"--dashboard-port={dash}", "--num-cpus=2", "--include-dashboard=true",
                        f"--temp-dir={self.temp}", "--disable-usage-stats"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.client = JobSubmissionClient(f"http://127.0.0.1:{dash}")
        deadline = time.monotonic() + 60
        while True:  # the dashboard's job server comes up after the head
            try:
                self.client.list_jobs()
                return self
            except Exception:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.5)

    def submit(self, folder):
        return self.client.submit_job(entrypoint=f"{sys.executable} job.py",
                                      runtime_env={"working_dir": folder})

    def __exit__(self, *exc):
        subprocess.run([self.ray, "stop", "--force"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        shutil.rmtree(self.temp, ignore_errors=True)


def ray_first_line(folder, reps):
    with RayHead() as head:
        times = []
        for _ in range(reps):
            start = time.perf_counter()
            job = head.submit(folder)

            async def first(job_id):
                async for chunk in head.client.tail_job_logs(job_id):
                    if "first line" in chunk:
                        return time.perf_counter() - start
                return None

            took = asyncio.run(first(job))
            if took is not None:
                times.append(took)
        return times


def ray_stream(folder, followers):
    """[lines, first, end] of each of ``followers`` tails of a Ray job's log
    (tail_job_logs)."""
    with RayHead() as head:
        job = head.submit(folder)
        counters = [[0, None, None] for _ in range(followers)]

        def follow(counter):
            async def count():
                async for chunk in head.client.tail_job_logs(job):
                    if counter[1] is None and chunk:
                        counter[1] = time.perf_counter()
                    counter[0] += chunk.count("\n")
            asyncio.run(count())
            counter[2] = time.perf_counter()

        threads = [threading.Thread(target=follow, args=(c,)) for c in counters]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return counters


def _ray_installed():
    try:
        import ray  # noqa: F401,PLC0415  (optional peer)
    except ImportError:
        print("Ray is not installed (requirements/bench.txt): its rows are skipped", flush=True)
        return False
    return True


def part_first_line(args, work):
    folder = os.path.join(work, "first")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "job.py"), "w") as f:
        f.write(PRINT_AT_ONCE)
    service = SkiffService(os.path.join(work, "root_first"))
    try:
        skiff_first_line(service, folder, 2)  # warm-up: the OS's caches, not the service
        times = skiff_first_line(service, folder, args.reps)
    finally:
        service.stop()
    result("first_line", "skiff_median", statistics.median(times) * 1000, "ms")
    result("first_line", "skiff_best", min(times) * 1000, "ms")
    if args.no_ray or not _ray_installed():
        return
    times = ray_first_line(folder, args.reps)
    result("first_line", "ray_median", statistics.median(times) * 1000, "ms")
    result("first_line", "ray_best", min(times) * 1000, "ms")


def _sse_lines(url, token, counter):
    """Counts the log lines of a stream (its "data: " fields, one per line), reading in
    large chunks so that the counting costs the benchmark little; counter = [lines, time
    of the first line, time of the end]."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    tail = b""
    with urllib.request.urlopen(request, timeout=600) as response:
        while True:
            chunk = response.read1(1 << 20)
            if not chunk:
                break
            if counter[1] is None and b"data: " in chunk:
                counter[1] = time.perf_counter()
            data = tail + chunk
            counter[0] += data.count(b"\ndata: ") + data.startswith(b"data: ")
            if b"event: end" in data:
                counter[0] -= 1  # the end event's own data field
                break
            tail = data[-7:]
            counter[0] -= tail.count(b"\ndata: ")  # counted again with the next chunk
    counter[2] = time.perf_counter()


def _rate(counters):
    """Lines/s of the slowest follower, from its first line to its last (a job's start
    is not the stream's)."""
    return min(c[0] / (c[2] - c[1]) for c in counters)


def part_stream(args, work):
    folder = os.path.join(work, "stream")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "job.py"), "w") as f:
        f.write("import sys\nline = 'x' * 90 + '\\n'\nw = sys.stdout.write\n"
                f"for i in range({args.lines}):\n    w(f'{{i:9d}} ' + line)\n")
    service = SkiffService(os.path.join(work, "root_stream"))
    try:
        for followers in [int(n) for n in args.followers.split(",")]:
            job = service.client.submit("job.py", directory=folder)
            url = f"{service.url}/api/jobs/{job['id']}/log/stream"
            counters = [[0, None, None] for _ in range(followers)]
            threads = [threading.Thread(target=_sse_lines, args=(url, service.token, c))
                       for c in counters]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            got = [c[0] for c in counters]
            assert all(g == args.lines for g in got), (got, args.lines)
            rate = _rate(counters)
            result("stream", f"skiff_{followers}_followers_lines_per_s_each", rate, "lines/s")
            result("stream", f"skiff_{followers}_followers_total_mb_per_s",
                   followers * rate * 101 / 1e6, "MB/s")
        result("stream", "skiff_service_peak_rss", service.peak_rss_mb(), "MB")
    finally:
        service.stop()
    if args.no_ray or not _ray_installed():
        return
    for followers in [int(n) for n in args.followers.split(",")]:
        counters = ray_stream(folder, followers)
        result("stream", f"ray_{followers}_followers_lines_per_s_each", _rate(counters),
               "lines/s")
        result("stream", f"ray_{followers}_followers_lines_received_min",
               min(c[0] for c in counters), "lines")


def part_list(args, work):
    root = os.path.join(work, "root_list")
    os.makedirs(root, exist_ok=True)
    store = Store(os.path.join(root, "cloud.db"))
    store.create_user("bench")
    spec = {"script": "a.py", "args": [], "workers": [1, 1], "nproc": 1, "cpus": 1,
            "priority": 0, "max_run_time": 60, "env": {}, "keep": [], "name": "a.py"}
    for i in range(10_000):
        job = store.add_job("bench", f"job{i}", spec, 0, 1)
        store.set_state(job["id"], "cancelled")
    store.close()
    service = SkiffService(root)
    latencies = []
    lock = threading.Lock()

    def call():
        start = time.perf_counter()
        service.client.jobs(limit=50)
        with lock:
            latencies.append(time.perf_counter() - start)

    try:
        rate, end = 200, time.perf_counter() + args.seconds
        with concurrent.futures.ThreadPoolExecutor(16) as pool:
            next_at = time.perf_counter()
            while next_at < end:
                pool.submit(call)
                next_at += 1 / rate
                time.sleep(max(0.0, next_at - time.perf_counter()))
    finally:
        service.stop()
    latencies.sort()
    result("list", "skiff_p50", latencies[len(latencies) // 2] * 1000, "ms")
    result("list", "skiff_p99", latencies[int(len(latencies) * 0.99)] * 1000, "ms")
    result("list", "skiff_requests", len(latencies), "requests")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="first_line,stream,list")
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--lines", type=int, default=2_000_000)
    ap.add_argument("--followers", default="1,20", help="stream: follower counts to run")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="skiff_cloud_bench")
    try:
        for part in args.parts.split(","):
            {"first_line": part_first_line, "stream": part_stream, "list": part_list}[part](
                args, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
