"""EDL's published experiments as simulated workloads (docs/simulator.md lists every
assumption): 133 nodes of 32 cores; "training": 20 jobs of 2-60 trainers (static: 60)
submitted 10 s apart; "nginx": 6 jobs (static: 15 trainers) beside an Nginx service going
400 -> 100 -> 400 pods in steps of 100 every 90 s."""
import random

from ..autoscaler.state import Resources
from .workload import JobSpec, NodeSpec, ServiceSpec

__all__ = ["PUBLISHED", "cluster", "trainer_rate", "training_case", "nginx_case"]

# EDL's published figures (mean pending seconds; CPU utilisation overall and off-peak).
PUBLISHED = {"training": {"edl": {"pending_mean": 42.9}, "static": {"pending_mean": 280.5}},
             "nginx": {"edl": {"cpu": 0.834, "cpu_off_peak": 0.794},
                       "static": {"cpu": 0.619, "cpu_off_peak": 0.449}}}

NODE = Resources(cpu=32, memory=128)
TRAINER = Resources(cpu=16, memory=32)
NGINX_POD = Resources(cpu=5, memory=2)
# A trainer's data-parallel step, from skiff's W3 measurement (bench/README.md): 64
# samples in 62 ms of compute, and about 1 ms to all-reduce W3's 200 KB of gradients,
# which a ring of n trainers scales by 2(n-1)/n.
BATCH, STEP, REDUCE = 64, 0.062, 0.001


def cluster(nodes=133):
    """``nodes`` machines of 32 cores and 128 GiB."""
    return [NodeSpec(f"node-{i:03d}", NODE) for i in range(nodes)]


def trainer_rate(workers, placement=None):
    """Samples per second of ``workers`` data-parallel trainers."""
    if workers <= 0:
        return 0.0
    return workers * BATCH / (STEP + REDUCE * 2 * (workers - 1) / workers)


def _jobs(count, gap, lo, hi, elastic, seed, hours=(2.0, 4.0)):
    """``count`` jobs ``gap`` s apart, each with 2-4 hours of work at 60 trainers."""
    rng = random.Random(seed)
    table = {n: trainer_rate(n) for n in range(1, hi + 1)}
    jobs = []
    for i in range(count):
        work = rng.uniform(*hours) * 3600 * trainer_rate(60)
        jobs.append(JobSpec(f"job-{i:02d}", i * gap, work, lo if elastic else hi, hi, TRAINER,
                            trainer_rate, throughput=table, elastic=elastic))
    return jobs


def training_case(elastic, seed=0, nodes=133, jobs=20):
    """The training-only case: (nodes, jobs, services, horizon in seconds)."""
    return cluster(nodes), _jobs(jobs, 10.0, 2, 60, elastic, seed), [], 480.0


def nginx_demand(cycles=2, high=400, low=100, step=100, every=90.0):
    """(times, demand) of the service: high, down by ``step`` every ``every`` s to low and
    back up, ``cycles`` times."""
    down = list(range(high, low - 1, -step))
    cycle = down + down[-2:0:-1]
    demand = cycle * cycles + [high]
    return [i * every for i in range(len(demand))], demand


def nginx_case(elastic, seed=0, nodes=133, jobs=6, cycles=2, pods=400):
    """The case with Nginx: (nodes, jobs, services, horizon in seconds)."""
    low = max(1, pods // 4)
    times, demand = nginx_demand(cycles, pods, low, max(1, pods // 4))
    service = ServiceSpec("nginx", NGINX_POD, times, demand)
    specs = _jobs(jobs, 10.0, 2, 60, elastic, seed)
    if not elastic:
        specs = [JobSpec(j.name, j.arrival, j.work, 15, 15, TRAINER, trainer_rate,
                         throughput=j.throughput, elastic=False) for j in specs]
    return cluster(nodes), specs, [service], times[-1]
