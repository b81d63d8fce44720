"""``skiff cloud simulate edl|pollux``: runs an experiment, prints its figures beside the
published ones and writes report.json and one utilisation plot per run into --out."""
import json
import os
import sys
import time

from . import edl, pollux
from .engine import Simulation
from .plot import plot_run
from .policies import policy_for
from .report import summarize

__all__ = ["add_verb", "simulate_edl", "simulate_pollux"]


def simulate_edl(policy, case="training", seed=0, nodes=133, reform=1.0, interval=5.0):
    """One EDL case under ``policy`` (static, edl, skiff): (report, run)."""
    build = edl.training_case if case == "training" else edl.nginx_case
    node_specs, jobs, services, horizon = build(policy != "static", seed=seed, nodes=nodes)
    sim = Simulation(node_specs, jobs, services, policy=policy_for(policy, interval),
                     interval=interval, reform=reform, horizon=horizon)
    run = sim.run()
    return summarize(run), run


def simulate_pollux(policy, data, load="1.0", workload=1, reform=1.0, interval=60.0,
                    limit=None):
    """One Pollux workload under ``policy`` (tiresias, edl, skiff): (report, run);
    ``limit``: only its first jobs."""
    node_specs, jobs = pollux.workload(data, load, workload, elastic=policy != "tiresias",
                                       limit=limit)
    extra = {"tiresias": {}, "edl": {"max_load": 1.0}}.get(policy, pollux.SKIFF_CONFIG)
    sim = Simulation(node_specs, jobs, policy=policy_for(policy, interval, **extra),
                     interval=interval, reform=reform)
    run = sim.run()
    return summarize(run), run


def _write(out, name, report, run, title):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, f"{name}.json"), "w") as f:
        json.dump(report, f, indent=1, sort_keys=True)
    plot_run(run, os.path.join(out, f"{name}.png"), title)


def _brief(report):
    return {k: report[k] for k in ("jct_mean", "jct_p90", "pending_mean", "finished",
                                    "never_started", "failed", "scaling_actions",
                                    "preemptions", "unmet_pod_seconds")}


def _edl(args):
    results = {}
    for case in args.case.split(","):
        for policy in args.policy.split(","):
            started = time.process_time()
            report, run = simulate_edl(policy, case, args.seed, args.nodes, args.reform)
            report["cpu_seconds"] = round(time.process_time() - started, 2)
            _write(args.out, f"edl-{case}-{policy}", report, run,
                   f"EDL {case} case, policy {policy}")
            util = report["utilisation"]
            results[f"{case}/{policy}"] = dict(_brief(report), cpu=util["cpu"],
                                               cpu_off_peak=util["cpu_off_peak"],
                                               cpu_seconds=report["cpu_seconds"])
            print(f"{case:8} {policy:7} {json.dumps(results[f'{case}/{policy}'])}", flush=True)
    summary = {"skiff": results, "published": edl.PUBLISHED}
    with open(os.path.join(args.out, "edl-summary.json"), "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True)
    return 0


def _pollux(args):
    data = args.data or os.environ.get("SKIFF_POLLUX_DATA")
    if not data:
        print("skiff cloud simulate pollux: give --data DIR or set SKIFF_POLLUX_DATA",
              file=sys.stderr)
        return 2
    first, _, last = args.workloads.partition("-")
    numbers = range(int(first), int(last or first) + 1)
    results = {}
    for load in args.load.split(","):
        for policy in args.policy.split(","):
            jcts, started, reports = [], time.process_time(), {}
            for w in numbers:
                report, run = simulate_pollux(policy, data, load, w, args.reform,
                                              limit=args.jobs)
                reports[w] = report
                jcts.append(report["jct_mean"])
                _write(args.out, f"pollux-{load}-{policy}-w{w}", report, run,
                       f"Pollux workload {w} at {load}x, policy {policy}")
            row = {"jct_mean": round(sum(jcts) / len(jcts), 1),
                   "jct_p90_mean": round(sum(r["jct_p90"] for r in reports.values())
                                         / len(reports), 1),
                   "failed": sum(r["failed"] for r in reports.values()),
                   "utilisation_gpu": round(sum(r["utilisation"]["gpu"] for r in
                                                reports.values()) / len(reports), 4),
                   "cpu_seconds": round(time.process_time() - started, 2)}
            published = pollux.published(data, load)
            row["published"] = published
            if "tiresias" in published:
                row["over_tiresias"] = round(row["jct_mean"] / published["tiresias"], 3)
            results[f"{load}/{policy}"] = row
            print(f"{load:4} {policy:9} {json.dumps(row)}", flush=True)
    with open(os.path.join(args.out, "pollux-summary.json"), "w") as f:
        json.dump(results, f, indent=1, sort_keys=True)
    return 0


def add_verb(verbs):
    """Adds ``simulate`` (with its experiments ``edl`` and ``pollux``) to ``verbs``."""
    s = verbs.add_parser("simulate", help="the cluster simulator: EDL's and Pollux's "
                         "experiments under skiff's autoscaler (docs/simulator.md)")
    experiments = s.add_subparsers(dest="experiment", required=True)
    e = experiments.add_parser("edl", help="EDL's 133-node experiments")
    e.add_argument("--policy", default="static,edl,skiff",
                   help="static, edl, skiff (comma-separated; default all three)")
    e.add_argument("--case", default="training,nginx", help="training, nginx (default both)")
    e.add_argument("--seed", type=int, default=0, help="draws the jobs' lengths")
    e.add_argument("--nodes", type=int, default=133)
    e.add_argument("--reform", type=float, default=1.0,
                   help="seconds a job stops when its world re-forms (default 1.0)")
    e.add_argument("--out", default="simulate-out", help="where reports and plots go")
    e.set_defaults(run=_edl)
    p = experiments.add_parser("pollux", help="Pollux's 64-GPU workloads")
    p.add_argument("--policy", default="tiresias,edl,skiff",
                   help="tiresias, edl, skiff (comma-separated; default all three)")
    p.add_argument("--load", default="1.0", help="0.5, 1.0, 1.5, 2.0 (comma-separated)")
    p.add_argument("--workloads", default="1-8", help="N or FIRST-LAST (default 1-8)")
    p.add_argument("--jobs", type=int, help="only each workload's first N jobs")
    p.add_argument("--data", help="the Pollux artifact's data folder "
                   "(default: SKIFF_POLLUX_DATA)")
    p.add_argument("--reform", type=float, default=1.0,
                   help="seconds a job stops when its workers change (default 1.0)")
    p.add_argument("--out", default="simulate-out", help="where reports and plots go")
    p.set_defaults(run=_pollux)
