"""Elastic training without restarts: workers killed with SIGKILL at random moments and
replaced, a worker stopped (SIGSTOP, a hang), etcd restarted, a worker joining late.
The job finishes, every sample of every epoch is trained on exactly once (counted from
the steps the workers applied), and the model is as good as an undisturbed run's."""
import glob
import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from jobs import WORKERS, job_env

from skiff.distributed.elastic import audit
from skiff.distributed.etcd_server import LocalEtcd

SAMPLES = 2000


class Job:
    def __init__(self, tmp_path, etcd, name, epochs=3, script="elastic_train.py", args=()):
        self.epochs = epochs
        self.script, self.args = script, [str(a) for a in args]
        self.dir = tmp_path / name
        self.dir.mkdir()
        self.env = job_env()
        self.env.update({"SKIFF_ETCD": etcd.endpoint, "SKIFF_JOB_ID": name})
        self.workers = []

    def start(self, min_workers=1):
        log = open(self.dir / f"worker{len(self.workers)}.log", "wb")
        p = subprocess.Popen([sys.executable, str(WORKERS / self.script), str(self.dir),
                              str(min_workers), *self.args, str(self.epochs)], env=self.env,
                             stdout=log,
                             stderr=subprocess.STDOUT)
        log.close()
        self.workers.append(p)
        return p

    def alive(self):
        return [p for p in self.workers if p.poll() is None]

    def wait(self, timeout):
        deadline = time.monotonic() + timeout
        for p in self.workers:
            p.wait(timeout=max(1, deadline - time.monotonic()))

    def logs(self):
        return "\n".join(f"--- {f.name} ---\n{f.read_text(errors='replace')[-3000:]}"
                         for f in sorted(self.dir.glob("worker*.log")))

    def step_times(self):
        """When each applied step finished (its earliest log line), in order."""
        times = {}
        for path in glob.glob(str(self.dir / "steps.*.jsonl")):
            with open(path) as f:
                for line in f:
                    if not line.endswith("\n"):  # cut by a kill, or still being written
                        continue
                    info = json.loads(line)
                    key = (info["epoch"], info["step"])
                    times[key] = min(times.get(key, info["time"]), info["time"])
        return sorted(times.values())

    def logged_steps(self):
        """Every step line the workers logged so far."""
        out = []
        for path in glob.glob(str(self.dir / "steps.*.jsonl")):
            with open(path) as f:
                out += [json.loads(line) for line in f if line.endswith("\n")]
        return out

    def wait_for_world_of(self, size, since, timeout=120):
        """Waits until a world of ``size`` workers applied a step after time ``since``."""
        deadline = time.monotonic() + timeout
        while not any(s["world_size"] == size and s["time"] > since
                      for s in self.logged_steps()):
            assert self.alive() and time.monotonic() < deadline, \
                f"no step of a world of {size} workers\n{self.logs()}"
            time.sleep(0.2)

    def steps(self):
        """The steps in the final model, {(epoch, step): samples}."""
        return audit.steps_in_model(self.logged_steps())

    def accuracies(self):
        out = []
        for path in glob.glob(str(self.dir / "accuracy.*")):
            steps, acc = open(path).read().split()
            if int(steps) > 0:
                out.append(float(acc))
        return out


def check_exactly_once(job, samples=SAMPLES):
    problems = audit.exactly_once(job.steps(), samples, job.epochs)
    assert not problems, "\n".join(problems) + "\n" + job.logs()


@pytest.fixture
def etcd():
    with LocalEtcd() as server:
        yield server


def run_undisturbed(tmp_path, etcd, **job_args):
    job = Job(tmp_path, etcd, "calm", **job_args)
    for _ in range(4):
        job.start(min_workers=4)
    job.wait(600)
    assert all(p.returncode == 0 for p in job.workers), job.logs()
    check_exactly_once(job, job_args.get("args", [SAMPLES])[0])
    return job


def run_chaos(tmp_path, etcd, at_progress, **job_args):
    """4 workers; 5 times a random one is killed with SIGKILL and a replacement started,
    when the job has trained on each fraction of its samples in ``at_progress`` (so every
    kill lands in the running job on any machine). Returns the job and the kill times."""
    job = Job(tmp_path, etcd, "chaos", **job_args)
    for _ in range(4):
        job.start()
    rng = random.Random(11)
    samples = job.epochs * int(job_args.get("args", [SAMPLES])[0])
    kill_times = []
    deadline = time.monotonic() + 300
    for kill in range(5):
        while (sum(map(len, job.steps().values())) < at_progress[kill] * samples
               and job.alive() and time.monotonic() < deadline):
            time.sleep(0.1)
        alive = [p for p in job.alive() if p.pid]
        if len(alive) < 2 or time.monotonic() >= deadline:
            break
        victim = rng.choice(alive)
        victim.send_signal(signal.SIGKILL)
        kill_times.append(time.time())
        victim.wait()
        job.start()  # its replacement joins the running job
    job.wait(600)
    return job, kill_times


def test_kill_nine_five_times_with_replacements(tmp_path, etcd):
    calm = run_undisturbed(tmp_path, etcd)
    # Kills at points of progress, not after fixed pauses: on a fast machine the job ended
    # before the fifth pause did, and the last "kill" hit a worker that had already finished.
    job, kill_times = run_chaos(tmp_path, etcd, at_progress=(0.1, 0.25, 0.4, 0.55, 0.7))
    kills = len(kill_times)
    killed = sum(p.returncode == -signal.SIGKILL for p in job.workers)
    assert killed == kills >= 3, job.logs()
    assert all(p.returncode in (0, -signal.SIGKILL) for p in job.workers), job.logs()
    check_exactly_once(job)
    # Recovery: from each kill to the next step the survivors finished.
    finished = job.step_times()
    recovery = [min(t for t in finished if t > k) - k for k in kill_times
                if any(t > k for t in finished)]
    print(f"recovery after SIGKILL: {', '.join(f'{r:.2f}' for r in recovery)} s")
    calm_acc, acc = max(calm.accuracies()), job.accuracies()
    assert acc and all(abs(a - calm_acc) <= 0.02 for a in acc), (calm_acc, acc, job.logs())


def test_hung_worker_late_joiner_and_etcd_restart(tmp_path, etcd):
    """Each disturbance waits for the job to show it lived through the one before, so the
    job (30 epochs, far more than the disturbances take) sees them all on any machine."""
    job = Job(tmp_path, etcd, "hang", epochs=30)
    first = [job.start() for _ in range(3)]
    try:
        job.wait_for_world_of(3, since=0)
        stopped = time.time()
        first[1].send_signal(signal.SIGSTOP)  # hangs: the others go on without it
        job.wait_for_world_of(2, since=stopped)
        etcd.restart()                        # the job lives through it
        joined = time.time()
        job.start()                           # and a late worker joins
        job.wait_for_world_of(3, since=joined)
        back = time.time()
        first[1].send_signal(signal.SIGCONT)  # the stopped one comes back and rejoins
        job.wait_for_world_of(4, since=back)
        job.wait(240)
    finally:
        for p in job.alive():  # (only when the test failed)
            p.kill()
    assert all(p.returncode == 0 for p in job.workers), job.logs()
    check_exactly_once(job)
    # Every worker trained and ends with the same model.
    acc = job.accuracies()
    assert len(acc) == 4 and len(set(acc)) == 1, (acc, job.logs())


def test_a_job_that_lost_every_worker_resumes_from_its_checkpoint(tmp_path, etcd):
    """Both workers killed after 45 steps (a checkpoint every 10): two new workers take
    the checkpoint, retrain the steps after it, and no sample is lost or doubled."""
    job = Job(tmp_path, etcd, "resume", epochs=4)
    job.env["SKIFF_TEST_CHECKPOINTS"] = str(tmp_path / "checkpoints")
    first = [job.start(min_workers=2) for _ in range(2)]
    deadline = time.monotonic() + 120
    while max((s["total"] for s in job.logged_steps()), default=0) < 45:
        assert time.monotonic() < deadline, job.logs()
        time.sleep(0.2)
    for p in first:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert (tmp_path / "checkpoints" / "elastic_checkpoint.skparams").exists()
    for _ in range(2):
        job.start(min_workers=2)
    job.wait(240)
    assert all(p.returncode == 0 for p in job.workers[2:]), job.logs()
    assert "resumed from" in job.logs(), job.logs()
    check_exactly_once(job)


class _Failed(Exception):
    pass


def _train_in_process(monkeypatch, etcd, job, checkpoints, epochs, fail_in_epoch=None,
                      lr_schedule=None, steps=None):
    """An elastic job of one worker in this process (an MLP on a synthetic 4-class problem,
    200 samples, batches of 16); ``fail_in_epoch`` makes it fail after its first step of
    that epoch; ``steps`` (a list) gets each step's on_step info. Returns the model's
    parameters."""
    import numpy as np

    import skiff
    import skiff.nn as nn
    import skiff.nn.functional as F
    from skiff.distributed import elastic

    monkeypatch.setenv("SKIFF_ETCD", etcd.endpoint)
    monkeypatch.setenv("SKIFF_JOB_ID", job)
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 4, 200)
    features = (rng.standard_normal([4, 8])[labels] + rng.standard_normal([200, 8]))
    data = [(features[i].astype(np.float32), labels[i]) for i in range(200)]

    def on_step(info):
        if steps is not None:
            steps.append(info)
        if info["epoch"] == fail_in_epoch:
            raise _Failed()

    with skiff.utils.unique_name.guard():  # the names a worker process of its own gives
        skiff.seed(1)
        model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
        opt = skiff.optimizer.Momentum(learning_rate=0.05, momentum=0.9,
                                       parameters=model.parameters())
        trainer = elastic.ElasticTrainer(
            model, opt, data, batch_size=16, loss_fn=lambda m, x, y: F.cross_entropy(m(x), y),
            checkpoint_dir=str(checkpoints), on_step=on_step, lr_schedule=lr_schedule)
        try:
            trainer.fit(epochs=epochs)
        except _Failed:
            pass
    return [p.numpy() for p in model.parameters()]


def test_a_checkpoint_taken_at_an_epoch_end_resumes_to_the_undisturbed_model(
        tmp_path, etcd, monkeypatch):
    """A job fails just after the checkpoint at the end of its first epoch; a new worker
    with a fresh model resumes from it, saves it again before its first step (its
    optimizer holds the loaded state, no accumulator yet), and ends with the very model
    of an undisturbed run."""
    import numpy as np

    calm = _train_in_process(monkeypatch, etcd, "calm", tmp_path / "calm", epochs=2)
    _train_in_process(monkeypatch, etcd, "failed", tmp_path / "ckpt", epochs=2,
                      fail_in_epoch=1)
    resumed = _train_in_process(monkeypatch, etcd, "failed", tmp_path / "ckpt", epochs=2)
    for got, want in zip(resumed, calm):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)


def test_the_learning_rate_follows_the_jobs_progress_in_epochs(tmp_path, etcd, monkeypatch):
    """lr_schedule gets the progress in epochs when each step begins (13 chunks of 16 of
    the 200 samples per epoch, one worker: step k of epoch e begins at e + k/13) and the
    step applies the rate it returns."""
    steps = []
    _train_in_process(monkeypatch, etcd, "lr", tmp_path, epochs=2,
                      lr_schedule=lambda progress: 0.1 / (1 + progress), steps=steps)
    assert [(s["epoch"], s["step"]) for s in steps] == [(e, k) for e in (0, 1)
                                                         for k in range(13)]
    for s in steps:
        assert s["lr"] == pytest.approx(0.1 / (1 + s["epoch"] + s["step"] / 13), rel=1e-12)


def test_w3_survives_five_kills_as_accurate_as_undisturbed(tmp_path, etcd):
    """W3 (the CNN on 30000 Fashion-MNIST training images, one epoch, 4 workers, Adam with
    cosine decay by progress): five random workers killed (at 10, 25, 40, 55 and 70% of
    the epoch) and replaced; every image trained on once (exactly, by the workers' logs),
    and the test accuracy no more than 1% below the same job undisturbed. (The global batch
    follows the number of workers, so a job that ran short of workers for a while took
    more, smaller steps, and how long it ran short depends on how fast replacements start
    on a loaded machine. At a constant learning rate that alone moves the accuracy of one
    epoch by +-1%: one process training the same chunks in steps of 4, 3 or 2 of them at
    random ended 0.8307-0.8514 against 0.8486; with the decay 0.8473-0.8511 against
    0.8485, and a chaos run under load 0.8425 against 0.8481. The bound is that 1%.)"""
    if not os.path.exists("/usr/share/datasets/fashion-mnist"):
        pytest.skip("needs the Debian package dataset-fashion-mnist")
    job_args = {"epochs": 1, "script": "elastic_w3.py", "args": [30000]}
    calm = run_undisturbed(tmp_path, etcd, **job_args)
    job, kill_times = run_chaos(tmp_path, etcd, at_progress=(0.1, 0.25, 0.4, 0.55, 0.7),
                                 **job_args)
    assert len(kill_times) == 5, job.logs()
    assert all(p.returncode in (0, -signal.SIGKILL) for p in job.workers), job.logs()
    check_exactly_once(job, 30000)
    calm_acc, acc = max(calm.accuracies()), job.accuracies()
    print(f"W3 test accuracy: undisturbed {calm_acc:.4f}, with 5 kills {acc}")
    assert acc and all(a >= calm_acc - 0.01 for a in acc), (calm_acc, acc, job.logs())
