"""A Paddle-style parameter-server script of a static program through the launcher: 2
servers and 2 trainers on 127.0.0.1 run workers/ps_fleet_static.py, which minimizes the
static CTR model (workers/ps_static.py) with fleet.distributed_optimizer and trains it
between fleet.init_worker() and fleet.stop_worker(). In sync mode the job ends with the
parameters and losses of one process training the unsplit program on the union batches
(within float32 rounding, test_ps_program.py's check), also when it is two jobs, the second
one's servers starting from the tables the first saved (fleet.save_persistables,
fleet.init_server(dirname)); in async mode the loss falls; in geo mode the job reaches the AUC of one process training the unsplit program on batches of 32 within 0.005.
Each job is bounded in time and leaves no process behind."""
import json
import sys
import time

import numpy as np
import pytest

from jobs import WORKERS
from ps_jobs import describe, launch

sys.path.insert(0, str(WORKERS))
import ps_ctr  # noqa: E402  (the data and constants)
import ps_static  # noqa: E402  (the static model)
from test_ps_program import check_sync_result, server_rows, static_mode  # noqa: E402,F401

import skiff  # noqa: E402
from skiff import static  # noqa: E402

TIMEOUT = 60  # seconds for a whole job (3 to 5 s on 2 cores; geo's 8 epochs 10 s)
EPOCHS = 8    # geo: the single-process AUC has about converged
K_STEPS = 10  # geo: each trainer sends its deltas every 10 steps
AUC_BOUND = 0.005


def run_job(tmp_path, mode, steps, k_steps=0, more=()):
    """Launches workers/ps_fleet_static.py as 2 servers and 2 trainers; the trainers' JSON
    results by index. Fails unless the job succeeds within
    TIMEOUT and leaves no process of its group running (whatever is left is killed)."""
    log_dir, out = tmp_path / "log", tmp_path / "out"
    out.mkdir(parents=True)
    start = time.monotonic()
    returncode, output, left = launch(
        ["--server_num", "2", "--trainer_num", "2", "--log_dir", log_dir,
         WORKERS / "ps_fleet_static.py", mode, steps, out, k_steps, *more], TIMEOUT)
    if output is None:
        pytest.fail(f"the {mode} job ran past {TIMEOUT} s\n{describe(log_dir)}")
    assert returncode == 0, describe(log_dir, output)
    assert not left, f"processes of the {mode} job outlived the launcher\n{describe(log_dir)}"
    assert "still running" not in output, describe(log_dir, output)  # stop_worker stopped them
    assert sorted(f.name for f in log_dir.glob("*log.*")) == [
        "serverlog.0", "serverlog.1", "workerlog.0", "workerlog.1"]
    print(f"\nfleet static {mode} 2x2, {steps} steps: {time.monotonic() - start:.1f} s")
    return {t: json.loads((out / f"trainer{t}.json").read_text()) for t in (0, 1)}


def test_sync_job_equals_one_process_on_the_union_batches(tmp_path, static_mode):
    results = run_job(tmp_path, "sync", ps_ctr.STEPS)
    # trainer 1 started from other values (its own seed) and took trainer 0's
    assert results[0]["initial"] == results[1]["initial"]
    check_sync_result([results[t] for t in sorted(results)], "fleet static sync")


def test_a_job_whose_servers_load_the_saved_tables_goes_on_from_them(tmp_path, static_mode):
    """Half the steps, saved by trainer 0; a new job whose servers init_server(dirname) does
    the other half: together the very run of one job (and of one process)."""
    saved, half = tmp_path / "saved", ps_ctr.STEPS // 2
    first = run_job(tmp_path / "first", "sync", half, more=["--save", saved])
    assert sorted(p.name for p in saved.iterdir()) == [
        f"{name}.shard{s}-of-2" for name in sorted([ps_static.TABLE] + ps_static.DENSE)
        for s in (0, 1)]
    second = run_job(tmp_path / "second", "sync", half,
                     more=["--start", half, "--load", saved])
    for t in (0, 1):  # the saved values, not trainer 0's startup values
        assert second[t]["initial"] == first[0]["final"]
    whole = [{"losses": first[t]["losses"] + second[t]["losses"],
              "initial": first[t]["initial"], "final": second[t]["final"],
              "rows": second[t].get("rows"),
              "next_step": first[t]["next_step"] + second[t]["next_step"]} for t in (0, 1)]
    check_sync_result(whole, "fleet static sync, saved and loaded halfway")


def test_async_job_trains(tmp_path):
    results = run_job(tmp_path, "async", ps_ctr.STEPS)
    for t, r in results.items():
        losses = np.array(r["losses"])
        print(f"fleet static async, trainer {t}: loss {losses[:40].mean():.4f} -> "
              f"{losses[-40:].mean():.4f}")
        assert losses[-40:].mean() < losses[:40].mean() - 0.05


def converged_auc(batch, epochs):
    """The AUC one process reaches training the unsplit static program with SGD on
    consecutive batches of ``batch`` for ``epochs`` passes, from the servers' rows."""
    vocab, train_ids, train_labels, eval_ids, eval_labels = ps_ctr.make_data()
    known = np.sort(vocab.reshape(-1))
    rows = server_rows(known)
    skiff.seed(100)
    main, startup, loss = ps_static.build(optimizer=ps_static.sgd(), table_rows=len(known))
    exe, scope = static.Executor(), static.global_scope()
    exe.run(startup)
    scope.set(ps_static.TABLE, rows)
    for _ in range(epochs):
        for step in range(len(train_ids) // batch):
            at = slice(step * batch, (step + 1) * batch)
            exe.run(main, feed={"ids": np.searchsorted(known, train_ids[at]),
                                "label": train_labels[at]}, fetch_list=[loss])
    table = scope.get(ps_static.TABLE).numpy()
    dense = {name: scope.get(name).numpy() for name in ps_static.DENSE}
    return ps_static.evaluate(lambda ids: table[np.searchsorted(known, ids)], dense, eval_ids,
                              eval_labels)


def test_geo_job_reaches_the_single_process_auc(tmp_path, static_mode):
    results = run_job(tmp_path, "geo", EPOCHS * ps_ctr.STEPS, K_STEPS)
    vocab, _, _, eval_ids, eval_labels = ps_ctr.make_data()
    ids = vocab.reshape(-1)
    table = dict(zip(ids.tolist(), np.array(results[0]["rows"], np.float32)))
    # both trainers took the job's dense values after the last deltas
    assert results[0]["final"] == results[1]["final"]
    auc = ps_static.evaluate(lambda i: np.stack([table[k] for k in i.tolist()]),
                             results[0]["final"], eval_ids, eval_labels)
    want = converged_auc(ps_ctr.BATCH // 2, EPOCHS)
    print(f"\nfleet static geo 2x2 (k_steps {K_STEPS}, {EPOCHS} epochs): auc {auc:.4f}; one "
          f"process on batches of 32: {want:.4f}")
    assert abs(auc - want) <= AUC_BOUND
