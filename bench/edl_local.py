"""The autoscaler on this machine, for real: a job service (skiff cloud serve, --slots N)
runs two elastic training jobs (W3's CNN on Fashion-MNIST and W5's CTR model, workers 1:3
each) beside a web service whose load follows a compressed day (night, a daytime peak,
night again) from a bounded load generator. Each second the service's demand (pods, as a
horizontal autoscaler computes it from the request rate) is declared to the job service,
whose autoscaler shrinks the jobs to grant the pods and grows them back as the load falls;
the experiment runs the granted pods. At the end: the jobs must have succeeded, every
sample of every epoch trained exactly once (from the steps the workers logged), the web
service's demand met, and the same scenario run through the cluster simulator (the jobs'
throughput per worker count as measured in this run, the demand as recorded) must predict
the measured utilisation and completion times within the stated margins.

    .venv/bin/python bench/edl_local.py [--short] [--slots 6] [--out build/edl_local]

Writes OUT/report.json and OUT/utilisation.png (measured and predicted); exit 1 when a
check fails. --short is the test command's form (about a minute)."""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import urllib.request

from skiff.cloud import Client
from skiff.cloud.autoscaler import Resources
from skiff.cloud.simulator import JobSpec, NodeSpec, ServiceSpec, Simulation, policy_for
from skiff.cloud.simulator import summarize
from skiff.cloud.store import Store
from skiff.distributed.elastic import audit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
# (samples, epochs) of each job: sized so that both outlast the day's peak
SIZES = {"short": {"w3": (30000, 2), "w5": (300000, 2)},
         "full": {"w3": (60000, 4), "w5": (500000, 3)}}
DAY_SECONDS = {"short": 40.0, "full": 180.0}
PER_POD_RPS = 25.0      # the request rate one pod is meant to serve (the HPA's target)
MARGIN_UTILISATION = 0.10   # predicted vs measured: absolute share of the slots
MARGIN_COMPLETION = 0.30    # predicted vs measured: relative completion time


class JobService:
    """skiff cloud serve on 127.0.0.1 (a free port), its root under ``root``."""

    def __init__(self, root, slots, interval=1.0, cooldown=4.0):
        os.makedirs(root, exist_ok=True)
        store = Store(os.path.join(root, "cloud.db"))
        self.token = store.create_user("experiment", admin=True)
        store.close()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "skiff.cloud", "serve", "--root", root, "--port", "0",
             "--slots", str(slots), "--scale-interval", str(interval),
             "--scale-cooldown", str(cooldown)],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for line in self.process.stdout:
            found = re.search(r"serving .* at (http://127\.0\.0\.1:\d+)", line)
            if found:
                break
        else:
            raise RuntimeError("the job service did not start (see its output above)")
        self.url = found.group(1)
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


class WebService:
    """The web service's pods (bench/edl/web_pod.py processes), as many as granted."""

    def __init__(self):
        self.pods = []  # (Popen, port)
        self.lock = threading.Lock()

    def resize(self, count):
        while len(self.pods) < count:
            p = subprocess.Popen([sys.executable, os.path.join(HERE, "edl", "web_pod.py")],
                                 stdout=subprocess.PIPE, text=True)
            port = int(p.stdout.readline().split()[-1])
            with self.lock:
                self.pods.append((p, port))
        while len(self.pods) > count:
            with self.lock:  # out of the load balancer first, then drained, then stopped
                p, _ = self.pods.pop()
            time.sleep(0.5)
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def ports(self):
        with self.lock:
            return [port for _, port in self.pods]


class Load:
    """Requests at ``rate(t)`` per second spread over the pods, from a few threads, until
    stopped or ``limit`` requests were sent; counts those answered and those not."""

    def __init__(self, web, rate, limit, threads=8):
        self.web, self.rate, self.limit = web, rate, limit
        self.sent = self.ok = self.failed = self.unserved = 0
        self.start, self.stop_flag = time.monotonic(), threading.Event()
        self.lock = threading.Lock()
        self.due = 0.0  # the time (since start) the next request is due
        self.threads = [threading.Thread(target=self._loop, daemon=True) for _ in range(threads)]
        for t in self.threads:
            t.start()

    def _loop(self):
        while not self.stop_flag.is_set():
            with self.lock:
                if self.sent >= self.limit:
                    return
                due = self.due
                self.due += 1.0 / max(self.rate(due), 1e-3)
                self.sent += 1
                number = self.sent
            wait = self.start + due - time.monotonic()
            if wait > 0 and self.stop_flag.wait(wait):
                return
            answered = self._send(number) or self._send(number + 1)  # (a balancer retries)
            with self.lock:
                if answered is None:
                    self.unserved += 1
                elif answered:
                    self.ok += 1
                else:
                    self.failed += 1

    def _send(self, number):
        """One request to a pod: True answered, False not, None no pod to send it to."""
        ports = self.web.ports()
        if not ports:
            return None
        try:
            url = f"http://127.0.0.1:{ports[number % len(ports)]}/score"
            with urllib.request.urlopen(url, timeout=5) as r:
                r.read()
            return True
        except OSError:
            return False

    def stop(self):
        self.stop_flag.set()
        for t in self.threads:
            t.join(timeout=10)


def day_rate(day):
    """Requests per second over a compressed day: 10 at night, 70 at noon, then night."""
    return lambda t: 10.0 + 60.0 * (1 - math.cos(2 * math.pi * min(t, day) / day)) / 2


def stage_jobs(folder):
    """The jobs' directory: their scripts and the W3 network (examples/fashion_mnist.py)."""
    os.makedirs(folder, exist_ok=True)
    for name in ("w3_job.py", "w5_job.py", "logged_fit.py"):
        shutil.copy(os.path.join(HERE, "edl", name), folder)
    shutil.copy(os.path.join(REPO, "examples", "fashion_mnist.py"), folder)
    return folder


def logged_steps(client, job_id, folder):
    """Every step line the job's workers logged (its kept steps/ folder)."""
    infos = []
    for item in client.artifacts(job_id):
        path = client.download(job_id, item["path"], os.path.join(folder, item["path"]))
        with open(path) as f:
            infos += [json.loads(line) for line in f if line.endswith("\n")]
    return infos


def throughput(infos):
    """{world size: samples/s} measured from a job's steps (each world's samples after its
    first step over the time from its first to its last; a world of one step says
    nothing)."""
    by_world = {}
    for info in infos:
        if info["rank"] == 0:
            by_world.setdefault(info["world"], []).append(info)
    rates = {}
    for steps in by_world.values():
        seconds = steps[-1]["time"] - steps[0]["time"]
        if len(steps) < 2 or seconds <= 0:
            continue
        samples = sum(len(s["samples"]) for s in steps[1:])
        rates.setdefault(steps[0]["world_size"], []).append((samples, seconds))
    return {n: sum(s for s, _ in v) / sum(t for _, t in v) for n, v in rates.items()}


def pauses(infos, submitted_at):
    """(seconds from submission to the first step, mean seconds between a world's last step
    and the next world's first: a re-form) of a job, from its steps' times."""
    by_world = {}
    for info in infos:
        if info["rank"] == 0:
            by_world.setdefault(info["world"], []).append(info["time"])
    spans = sorted((min(t), max(t)) for t in by_world.values())
    startup = spans[0][0] - submitted_at if spans else 0.0
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:])]
    return startup, (sum(gaps) / len(gaps) if gaps else None)


def interpolated(rates, top, job):
    """{1..top: samples/s} from the measured counts (linear between them, flat beyond)."""
    if not rates:
        raise SystemExit(f"edl_local: job {job} logged no world of two steps or more: no "
                         "throughput to simulate it with (its steps/ folder has what it logged)")
    known = sorted(rates.items())
    out = {}
    for n in range(1, top + 1):
        below = [(k, r) for k, r in known if k <= n]
        above = [(k, r) for k, r in known if k >= n]
        if below and above:
            (k0, r0), (k1, r1) = below[-1], above[0]
            out[n] = r0 if k1 == k0 else r0 + (r1 - r0) * (n - k0) / (k1 - k0)
        else:
            k, r = (below or above)[-1 if below else 0]
            out[n] = r * n / k if not below else r
    return out


def predict(slots, jobs, timeline, interval, cooldown):
    """The simulator's run of this experiment: one node of ``slots`` CPUs, the jobs with
    their measured throughput and startup, a re-form as long as measured, the web
    service's recorded demand."""
    specs = []
    for name, job in jobs.items():
        rate = interpolated(job["throughput"], 3, name)
        specs.append(JobSpec(name=name, arrival=job["submitted"], work=job["work"],
                             min_workers=1, max_workers=3, worker=Resources(cpu=1),
                             rate=lambda n, _, r=rate: r[n], startup=job["startup"]))
        # (no throughput for the autoscaler: the job service's did not have one either)
    reforms = [j["reform"] for j in jobs.values() if j["reform"] is not None]
    times = [p["t"] for p in timeline]
    service = ServiceSpec("web", Resources(cpu=1), times, [p["demand"] for p in timeline])
    run = Simulation([NodeSpec("local", Resources(cpu=slots))], specs, [service],
                     policy=policy_for("skiff", interval, cooldown=cooldown),
                     interval=interval,
                     reform=sum(reforms) / len(reforms) if reforms else 1.0).run()
    return run, summarize(run)


def measured_utilisation(timeline, slots, end):
    held = 0.0
    for p, q in zip(timeline, timeline[1:] + [{"t": end}]):
        held += (p["workers"] + p["granted"]) * (q["t"] - p["t"])
    return held / (slots * end)


def plot(timeline, run, slots, path):
    import matplotlib  # noqa: PLC0415  (a heavy optional dependency: requirements/simulate.txt)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415  (with matplotlib)

    t = [p["t"] for p in timeline]
    fig, ax = plt.subplots(figsize=(9, 4), dpi=100)
    ax.step(t, [(p["workers"] + p["granted"]) / slots for p in timeline], where="post",
            label="slots held (measured)")
    ax.step([s[0] for s in run.timeline], [s[1].cpu / slots for s in run.timeline],
            where="post", linestyle=":", label="slots held (simulator)")
    ax.step(t, [p["granted"] / slots for p in timeline], where="post", label="web pods")
    for name in ("w3", "w5"):
        ax.step(t, [p["jobs"].get(name, 0) / slots for p in timeline], where="post",
                label=f"{name} workers")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("time (s)")
    ax.set_ylabel(f"share of the {slots} slots")
    ax.legend(loc="center right", fontsize=8, framealpha=0.9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run(args):
    form = "short" if args.short else "full"
    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    service = JobService(os.path.join(out, "service"), args.slots, args.interval,
                         args.cooldown)
    web = WebService()
    load = None
    try:
        client = Client(service.url, service.token)
        folder = stage_jobs(os.path.join(out, "jobfiles"))
        started = time.time()
        jobs = {}
        for name in ("w3", "w5"):
            samples, epochs = SIZES[form][name]
            job = client.submit(f"{name}_job.py", args=[str(samples), str(epochs)],
                                directory=folder, workers="1:3", keep=["steps"], name=name)
            jobs[name] = {"id": job["id"], "submitted": time.time() - started,
                          "submitted_at": time.time(),
                          "samples": samples, "epochs": epochs, "work": samples * epochs}
        day = DAY_SECONDS[form]
        rate = day_rate(day)
        load = Load(web, rate, limit=int(day * 80))
        timeline = []
        deadline = started + args.max_seconds
        while time.time() < deadline:
            t = time.time() - started
            demand = math.ceil(rate(t) / PER_POD_RPS) if t < day else 1
            granted = client.set_service("web", demand, cpus=1)["granted"]
            if granted < demand:  # the autoscaler makes room at its next tick
                time.sleep(0.3)
                granted = client.services()[0]["granted"]
            web.resize(granted)
            states = {name: client.job(j["id"]) for name, j in jobs.items()}
            timeline.append({"t": round(t, 2), "rps": round(rate(t), 1), "demand": demand,
                             "granted": granted,
                             "jobs": {n: s["workers"] or 0 for n, s in states.items()
                                      if s["state"] == "running"}})
            timeline[-1]["workers"] = sum(timeline[-1]["jobs"].values())
            if all(s["state"] in ("succeeded", "failed", "cancelled") for s in states.values()):
                break
            time.sleep(max(0.0, 1.0 - (time.time() - started - t)))
        end = time.time() - started
        load.stop()
        report = {"form": form, "slots": args.slots, "day_seconds": day, "seconds": round(end, 1),
                  "web": {"sent": load.sent, "answered": load.ok, "failed": load.failed,
                          "no_pod": load.unserved,
                          "demand_met": round(sum(p["granted"] >= p["demand"] for p in timeline)
                                              / len(timeline), 3)},
                  "jobs": {}, "checks": {}}
        for name, j in jobs.items():
            final = client.job(j["id"])
            infos = logged_steps(client, j["id"], os.path.join(out, "steps", name))
            problems = audit.exactly_once(audit.steps_in_model(infos), j["samples"], j["epochs"])
            j["throughput"] = throughput(infos)
            j["startup"], j["reform"] = pauses(infos, j["submitted_at"])
            events = final["events"]
            report["jobs"][name] = {
                "state": final["state"], "exit_code": final["exit_code"],
                "completion": round(final["finished"] - started, 1) if final["finished"]
                else None,
                "resizes": [e["detail"]["workers"] for e in events if e["kind"] == "scaling"],
                "worlds": [(e["detail"]["workers"], e["detail"].get("step"))
                           for e in events if e["kind"] == "membership"],
                "samples_per_s": {n: round(r, 1) for n, r in sorted(j["throughput"].items())},
                "startup_s": round(j["startup"], 2),
                "reform_s": None if j["reform"] is None else round(j["reform"], 2),
                "exactly_once": problems or "held"}
        simulated, predicted = predict(args.slots, jobs, timeline, args.interval, args.cooldown)
        report["utilisation"] = {"measured": round(measured_utilisation(timeline, args.slots,
                                                                        end), 3),
                                 "predicted": predicted["utilisation"]}
        report["completion_predicted"] = predicted["completion"]
        report["timeline"] = timeline
        plot(timeline, simulated, args.slots, os.path.join(out, "utilisation.png"))
        checks = report["checks"]
        for name, job in report["jobs"].items():
            checks[f"{name} succeeded"] = job["state"] == "succeeded"
            checks[f"{name} trained every sample exactly once"] = job["exactly_once"] == "held"
            checks[f"{name} shrank and grew"] = any(
                b < a for a, b in zip(job["resizes"], job["resizes"][1:])) and any(
                b > a for a, b in zip(job["resizes"], job["resizes"][1:]))
            want, got = report["completion_predicted"][name], job["completion"]
            checks[f"{name} completion predicted within {MARGIN_COMPLETION:.0%}"] = (
                want is not None and got is not None
                and abs(want - got) <= MARGIN_COMPLETION * got)
        checks["web demand met at least 90% of the time"] = report["web"]["demand_met"] >= 0.9
        checks["web requests all answered"] = load.failed == 0
        u = report["utilisation"]
        checks[f"utilisation predicted within {MARGIN_UTILISATION:.0%}"] = (
            u["predicted"]["cpu"] is not None
            and abs(u["predicted"]["cpu"] - u["measured"]) <= MARGIN_UTILISATION)
        with open(os.path.join(out, "report.json"), "w") as f:
            json.dump(report, f, indent=1)
        return report
    finally:
        if load is not None:
            load.stop()
        web.resize(0)
        service.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--short", action="store_true", help="the test command's form")
    p.add_argument("--slots", type=int, default=6)
    p.add_argument("--interval", type=float, default=1.0, help="the autoscaler's period")
    p.add_argument("--cooldown", type=float, default=4.0, help="seconds between resizes")
    p.add_argument("--max-seconds", type=float, default=900.0)
    p.add_argument("--out", default=os.path.join(REPO, "build", "edl_local"))
    args = p.parse_args()
    report = run(args)
    summary = {k: v for k, v in report.items() if k != "timeline"}
    print(json.dumps(summary, indent=1))
    failed = [name for name, ok in report["checks"].items() if not ok]
    for name in failed:
        print(f"edl_local: check failed: {name}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
