"""fleet's parameter-server mode: the role makers read Paddle's variables, the strategy
picks the mode, the launcher runs a script as 2 servers and 2 trainers on 127.0.0.1
(workers/ps_fleet_ctr.py, the CTR model of ps_ctr.py). Sync mode through fleet equals one
process on the union batches (within float32 rounding of the same steps on any CPU, as
float32_runs derives it); geo and async reach the single-process AUC within 0.005; a
failing trainer or server ends the job naming its log; mistakes fail clearly."""
import json
import socket
import sys
import time
import types

import numpy as np
import pytest

from float32_runs import check_same_steps
from jobs import WORKERS, load_worker
from ps_jobs import describe, launch

import skiff
from skiff import _C
from skiff.distributed import fleet, ps
from skiff.distributed.launch import main as launch_main


ps_ctr = load_worker("ps_ctr")  # the trainers' model and data

EPOCHS = 8     # geo and async: the single-process AUC has about converged (0.917)
K_STEPS = 10   # geo: each trainer sends its deltas every 10 steps
AUC_BOUND = 0.005
PS_VARIABLES = ("TRAINING_ROLE", "PADDLE_PSERVERS_IP_PORT_LIST", "PADDLE_TRAINERS_NUM",
                "PADDLE_TRAINER_ID", "POD_IP", "PADDLE_PORT", "PADDLE_TRAINER_ENDPOINTS")


@pytest.fixture(autouse=True)
def leave_fleet(monkeypatch):
    """Each test starts outside any job, and leaves fleet's parameter-server mode."""
    for name in PS_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield
    fleet.ps_mode.reset()


@pytest.fixture(scope="module")
def data():
    return ps_ctr.make_data()


def single_process(data, batch, epochs):
    """One process training on consecutive batches of ``batch`` with SGD from the values a
    fleet job starts with (rows from the servers' initializer, dense values from
    skiff.seed(0), as trainer 0's): {"eval": (loss, AUC), "state": the final parameters (as
    the job's trainer 0 writes them), "before_last": the parameters one step earlier}."""
    vocab, train_ids, train_labels, eval_ids, eval_labels = data
    server = _C.PsServer(address="127.0.0.1:0", shard=0, shards=1)
    try:
        connection = ps.Connection([f"127.0.0.1:{server.port}"], 0, 1, "async")
        embedding = ps.DistributedEmbedding("emb", ps_ctr.DIM, init=ps_ctr.EMBEDDING_INIT,
                                            optimizer=ps_ctr.SGD, connection=connection)
        ids = vocab.reshape(-1)
        local = ps_ctr.LocalEmbedding(ids, embedding.pull(ids))
    finally:
        server.shutdown()
    skiff.seed(0)
    model = ps_ctr.CTR(local)
    opt = skiff.optimizer.SGD(learning_rate=ps_ctr.LR, parameters=model.parameters())

    def state():
        return {"emb": local.rows(ids), **{
            name: p.numpy() for name, p in model.named_parameters() if "fc" in name}}

    for _ in range(epochs):
        for step in range(len(train_ids) // batch):
            before_last = state() if step == len(train_ids) // batch - 1 else None
            rows = slice(step * batch, (step + 1) * batch)
            ps_ctr.loss_of(model, train_ids[rows], train_labels[rows]).backward()
            opt.step()
            opt.clear_grad()
    return {"eval": ps_ctr.evaluate(model, eval_ids, eval_labels), "state": state(),
            "before_last": before_last}


def check_equals_single_process(result, data, label):
    """Trainer 0's ``result`` of a sync job within float32 rounding of one process on the
    union batches, in parameters; its evaluation alike (the AUC counts ranks: a score that
    rounding moves past a tie changes it by 1/(positives * negatives), 2.5e-7 here)."""
    want = single_process(data, ps_ctr.BATCH, 1)
    got = {name: np.array(value, np.float32) for name, value in result["state"].items()}
    check_same_steps(got, want["state"], want["before_last"],
                     f"{label} vs one process on batches of 64")
    (loss, auc), (want_loss, want_auc) = result["eval"], want["eval"]
    print(f"{label}: loss {loss:.6f} auc {auc:.6f}; one process: loss {want_loss:.6f} "
          f"auc {want_auc:.6f}")
    assert abs(loss - want_loss) <= 1e-5 and abs(auc - want_auc) <= 1e-4


def free_ports(n):
    sockets = [socket.socket() for _ in range(n)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def run_ps_job(tmp_path, mode, k_steps, epochs, launcher_args=("--server_num", "2",
               "--trainer_num", "2"), fail="", timeout=90):
    """Launches workers/ps_fleet_ctr.py; (exit code, launcher output, logs by file name,
    trainers' JSON by index). The whole process group is killed on a timeout."""
    log_dir, out = tmp_path / "log", tmp_path / "out"
    out.mkdir()
    returncode, output, _ = launch(
        ["--log_dir", log_dir, *launcher_args, WORKERS / "ps_fleet_ctr.py", mode, k_steps,
         epochs, out] + ([fail] if fail else []), timeout)
    if output is None:
        pytest.fail(f"the job ran past {timeout} s\n{describe(log_dir)}")
    logs = {f.name: f.read_text(errors="replace") for f in log_dir.glob("*log.*")} \
        if log_dir.exists() else {}
    results = {int(f.stem[len("trainer"):]): json.loads(f.read_text())
               for f in out.glob("trainer*.json")}
    return returncode, output, logs, results


# ----- role makers and strategy ------------------------------------------------------

def test_role_maker_reads_a_trainers_environment(monkeypatch):
    monkeypatch.setenv("TRAINING_ROLE", "TRAINER")
    monkeypatch.setenv("PADDLE_PSERVERS_IP_PORT_LIST", "127.0.0.1:7001, 127.0.0.1:7002")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "3")
    monkeypatch.setenv("PADDLE_TRAINER_ID", "2")
    role = fleet.PaddleCloudRoleMaker(is_collective=False)
    assert (role.is_worker(), role.is_server(), role.is_first_worker()) == (True, False, False)
    assert (role.worker_index(), role.worker_num(), role.server_num()) == (2, 3, 2)
    assert role.server_endpoints() == ["127.0.0.1:7001", "127.0.0.1:7002"]
    fleet.init(is_collective=False)
    assert (fleet.is_worker(), fleet.is_server(), fleet.worker_index()) == (True, False, 2)
    assert fleet.server_endpoints(to_string=True) == "127.0.0.1:7001,127.0.0.1:7002"
    with pytest.raises(RuntimeError, match="only servers call it"):
        fleet.run_server()
    with pytest.raises(RuntimeError, match=r"call fleet.init_worker\(\) first"):
        fleet.stop_worker()


def test_role_maker_reads_a_servers_environment(monkeypatch):
    monkeypatch.setenv("TRAINING_ROLE", "PSERVER")
    monkeypatch.setenv("PADDLE_PSERVERS_IP_PORT_LIST", "127.0.0.1:7001,127.0.0.1:7002")
    monkeypatch.setenv("PADDLE_TRAINERS_NUM", "2")
    monkeypatch.setenv("POD_IP", "127.0.0.1")
    monkeypatch.setenv("PADDLE_PORT", "7002")
    fleet.init()
    assert (fleet.is_server(), fleet.is_worker(), fleet.is_first_worker()) == (True, False,
                                                                                 False)
    assert (fleet.server_index(), fleet.server_num(), fleet.worker_num()) == (1, 2, 2)
    with pytest.raises(RuntimeError, match="only trainers call it"):
        fleet.init_worker()
    with pytest.raises(ValueError, match="'no_such_folder' is not a folder"):
        fleet.init_server("no_such_folder")
    with pytest.raises(ValueError, match="give the folder too"):
        fleet.init_server(var_names=["emb"])
    fleet.init_server()


@pytest.mark.parametrize("variables, message", [
    ({}, r"not part of a parameter-server job \(TRAINING_ROLE is not set"),
    ({"TRAINING_ROLE": "WORKER"}, "TRAINING_ROLE must be TRAINER or PSERVER, got 'WORKER'"),
    ({"TRAINING_ROLE": "TRAINER"}, "PADDLE_PSERVERS_IP_PORT_LIST is not set"),
    ({"TRAINING_ROLE": "TRAINER", "PADDLE_PSERVERS_IP_PORT_LIST": "127.0.0.1"},
     "'127.0.0.1' is not HOST:PORT"),
    ({"TRAINING_ROLE": "TRAINER", "PADDLE_PSERVERS_IP_PORT_LIST": "127.0.0.1:1",
      "PADDLE_TRAINERS_NUM": "two"}, "PADDLE_TRAINERS_NUM='two' is not an integer"),
    ({"TRAINING_ROLE": "TRAINER", "PADDLE_PSERVERS_IP_PORT_LIST": "127.0.0.1:1",
      "PADDLE_TRAINERS_NUM": "2"}, "PADDLE_TRAINER_ID is not set"),
    ({"TRAINING_ROLE": "TRAINER", "PADDLE_PSERVERS_IP_PORT_LIST": "127.0.0.1:1",
      "PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ID": "2"}, r"trainer index 2 is not in \[0, 2\)"),
    ({"TRAINING_ROLE": "PSERVER", "PADDLE_PSERVERS_IP_PORT_LIST": "127.0.0.1:1",
      "PADDLE_TRAINERS_NUM": "2", "POD_IP": "127.0.0.1", "PADDLE_PORT": "2"},
     "127.0.0.1:2 is not in PADDLE_PSERVERS_IP_PORT_LIST"),
])
def test_role_maker_environment_mistakes_fail_clearly(monkeypatch, variables, message):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=message):
        fleet.init(is_collective=False)
    assert not fleet.ps_mode.active()


def test_user_defined_role_maker():
    role = fleet.UserDefinedRoleMaker(current_id=0, role=fleet.Role.SERVER, worker_num=2,
                                      server_endpoints=["127.0.0.1:7001", "127.0.0.1:7002"])
    fleet.init(role)
    assert (fleet.is_server(), fleet.server_index(), fleet.worker_num()) == (True, 0, 2)
    with pytest.raises(ValueError, match=r"server index 2 is not in \[0, 2\)"):
        fleet.UserDefinedRoleMaker(current_id=2, role=fleet.Role.SERVER, worker_num=1,
                                   server_endpoints="127.0.0.1:7001,127.0.0.1:7002")
    with pytest.raises(ValueError, match="role must be Role.WORKER or Role.SERVER"):
        fleet.UserDefinedRoleMaker(current_id=0, role="trainer", worker_num=1,
                                   server_endpoints=["127.0.0.1:7001"])
    with pytest.raises(ValueError, match="given more than once"):
        fleet.UserDefinedRoleMaker(worker_num=1, server_endpoints=["127.0.0.1:1"] * 2)
    with pytest.raises(ValueError, match="give server_endpoints"):
        fleet.UserDefinedRoleMaker(worker_num=1)


def test_strategy_chooses_the_mode():
    strategy = fleet.DistributedStrategy()
    assert strategy.ps_mode() == ("async", 0)  # Paddle's default: a_sync True
    strategy.a_sync = False
    assert strategy.ps_mode() == ("sync", 0)
    with pytest.raises(ValueError, match="needs a_sync=True"):
        strategy.a_sync_configs = {"k_steps": 100}
        strategy.ps_mode()
    strategy.a_sync = True
    strategy.a_sync_configs = {"send_queue_size": 4}  # Paddle's; no effect here
    assert strategy.ps_mode() == ("geo", 100)
    assert strategy.a_sync_configs == {"k_steps": 100, "send_queue_size": 4}
    with pytest.raises(ValueError, match="unknown key.*'k_step'"):
        strategy.a_sync_configs = {"k_step": 10}
    with pytest.raises(ValueError, match="k_steps must be an integer"):
        strategy.a_sync_configs = {"k_steps": 2.5}
    with pytest.raises(TypeError, match="a_sync must be True or False"):
        strategy.a_sync = "yes"
    with pytest.raises(ValueError, match="DistributedStrategy.amp: not supported"):
        strategy.amp = True


# ----- fleet and the servers, in this process ----------------------------------------

@pytest.fixture
def server():
    server = _C.PsServer(address="127.0.0.1:0", shard=0, shards=1)
    yield f"127.0.0.1:{server.port}"
    server.shutdown()


def test_static_mode_hands_the_program_to_ps_program(monkeypatch, server):
    """distributed_optimizer returns ps.program's DistributedMinimizer in static mode,
    init_worker hands it the connection when a program is pending, and stop_worker sends
    its last geo deltas before the trainers meet."""
    calls = []
    fake = types.ModuleType("skiff.distributed.ps.program")
    fake.DistributedMinimizer = lambda *args: ("minimizer", args)
    fake.pending = lambda: True
    fake.init_worker = calls.append
    fake.stop_worker = lambda: calls.append("stopped")
    fake.flush = lambda: calls.append("flushed")
    monkeypatch.setitem(sys.modules, "skiff.distributed.ps.program", fake)
    strategy = fleet.DistributedStrategy()
    strategy.a_sync_configs = {"k_steps": 4}
    fleet.init(fleet.UserDefinedRoleMaker(0, fleet.Role.WORKER, 1, [server]), strategy=strategy)
    skiff.enable_static()
    try:
        opt = skiff.optimizer.SGD(learning_rate=0.1)
        assert fleet.distributed_optimizer(opt) == ("minimizer", (opt, "geo", 4))
    finally:
        skiff.disable_static()
    fleet.init_worker()
    assert len(calls) == 1 and calls[0].mode == "geo" and calls[0] is ps.connection()
    fleet.stop_worker()  # trainer 0 stops the (in-process) server
    assert calls[1:] == ["flushed", "stopped"]


def test_dygraph_optimizer_mistakes_fail_clearly(server):
    strategy = fleet.DistributedStrategy()
    strategy.a_sync_configs = {"k_steps": 2}
    fleet.init(fleet.UserDefinedRoleMaker(0, fleet.Role.WORKER, 1, [server]), strategy=strategy)
    net = skiff.nn.Linear(2, 1)
    with pytest.raises(ValueError, match="plain SGD.*not Adam"):
        fleet.distributed_optimizer(skiff.optimizer.Adam(parameters=net.parameters()))
    opt = fleet.distributed_optimizer(skiff.optimizer.SGD(0.1, parameters=net.parameters()))
    with pytest.raises(RuntimeError, match=r"call fleet.init_worker\(\) and "
                                           r"fleet.distributed_model\(model\) first"):
        opt.step()
    strategy.a_sync_configs = {"k_steps": 0}  # async: the servers apply the optimizer
    scheduler = skiff.optimizer.lr.StepDecay(0.1, step_size=10)
    with pytest.raises(ValueError, match="learning-rate scheduler"):
        fleet.distributed_optimizer(skiff.optimizer.SGD(scheduler, net.parameters()), strategy)
    with pytest.raises(ValueError, match="SGD, Adagrad or Adam.*not Momentum"):
        fleet.distributed_optimizer(skiff.optimizer.Momentum(0.1, parameters=net.parameters()))


def test_dygraph_optimizer_trains_on_the_servers_until_barrier_worker(server):
    """One trainer in sync mode: a step applies SGD on the servers to trainer 0's values; a
    sync step after barrier_worker() would never be applied, so it is refused."""
    strategy = fleet.DistributedStrategy()
    strategy.a_sync = False
    fleet.init(fleet.UserDefinedRoleMaker(0, fleet.Role.WORKER, 1, [server]), strategy=strategy)
    fleet.init_worker()
    skiff.seed(3)
    net = fleet.distributed_model(skiff.nn.Linear(3, 1))
    start = net.weight.numpy().copy()
    with pytest.raises(ValueError, match="SGD, Adagrad or Adam"):
        fleet.distributed_optimizer(skiff.optimizer.AdamW(0.1, parameters=net.parameters()))
    opt = fleet.distributed_optimizer(skiff.optimizer.SGD(0.1, parameters=net.parameters()))
    net(skiff.to_tensor(np.ones([4, 3], np.float32))).sum().backward()
    opt.step()
    np.testing.assert_allclose(net.weight.numpy(), start - 0.1 * 4, rtol=1e-6)
    fleet.barrier_worker()
    with pytest.raises(RuntimeError, match="after a barrier_worker"):
        opt.step()
    fleet.ps_mode.reset()
    fleet.init(fleet.UserDefinedRoleMaker(0, fleet.Role.WORKER, 1, [server]), strategy=strategy)
    fleet.init_worker()
    fleet.barrier_worker()
    fleet.distributed_optimizer(skiff.optimizer.SGD(0.1, parameters=net.parameters()))
    with pytest.raises(RuntimeError, match="before the first barrier_worker"):
        fleet.distributed_model(net)


def test_geo_trainer_sends_deltas_every_k_steps(server):
    """One trainer alone, k_steps 2: rows move on the servers only at a sync, by what the
    local SGD moved them."""
    connection = ps.Connection([server], 0, 1, "geo")
    embedding = ps.DistributedEmbedding("rows", 2, init={"kind": "constant", "value": 1.0},
                                        connection=connection)
    model = skiff.nn.Sequential(embedding)
    trainer = ps.GeoTrainer(model, k_steps=2, lr=0.5, connection=connection)
    with pytest.raises(RuntimeError, match="in geo mode the rows are trained locally"):
        embedding.push()
    ids = np.array([5, 5, 9])
    model(ids).sum().backward()  # gradient 2 for row 5, 1 for row 9
    trainer.step()
    np.testing.assert_array_equal(embedding.pull(np.array([5, 9])), np.ones([2, 2]))
    with skiff.no_grad():  # the trainer's rows
        np.testing.assert_array_equal(model(np.array([5, 9])).numpy(), [[0, 0], [0.5, 0.5]])
    model(ids).sum().backward()
    trainer.step()  # the sync: row 5 moved by -2 in all, row 9 by -1
    np.testing.assert_array_equal(embedding.pull(np.array([5, 9])), [[-1, -1], [0, 0]])
    with skiff.no_grad():  # the rows were forgotten at the sync: pulled again
        np.testing.assert_array_equal(model(np.array([5, 9])).numpy(), [[-1, -1], [0, 0]])
    with pytest.raises(ValueError, match="k_steps must be a positive integer"):
        ps.GeoTrainer(model, k_steps=0, lr=0.5, connection=connection)
    with pytest.raises(ValueError, match="needs ps.init"):
        ps.GeoTrainer(model, 1, 0.5, connection=ps.Connection([server], 0, 1, "async"))


def test_geo_trainer_of_two_sends_half_and_carries_the_rest(server):
    """Trainer 0 of 2, k_steps 1: a sync pushes half of each delta, and the other half is
    carried: added back to the dense values at once, to a row at its next pull. finish()
    pushes half of what moved since and drops the carries."""
    connection = ps.Connection([server], 0, 2, "geo", barrier_timeout=10)
    embedding = ps.DistributedEmbedding("rows", 1, init={"kind": "constant", "value": 1.0},
                                        connection=connection)
    model = skiff.nn.Sequential(embedding, skiff.nn.Linear(1, 1, bias_attr=False))
    weight = model[1].weight
    trainer = ps.GeoTrainer(model, k_steps=1, lr=0.5, connection=connection)
    w = float(weight.numpy()[0, 0])  # the servers' initial value
    model(np.array([5, 7])).sum().backward()  # gradient w for rows 5 and 7, 2 for the weight
    trainer.step()
    np.testing.assert_allclose(embedding.pull(np.array([5, 7])), [[1 - w / 4]] * 2, rtol=1e-6)
    np.testing.assert_allclose(weight.numpy(), [[w - 1]], rtol=1e-6)  # the servers' w - 1/2
    with skiff.no_grad():
        np.testing.assert_allclose(model[0](np.array([7])).numpy(), [[1 - w / 2]], rtol=1e-6)
    trainer.finish()  # row 7 moved by -w/4 since its pull (its carry): half of it is pushed
    np.testing.assert_allclose(embedding.pull(np.array([5, 7])), [[1 - w / 4], [1 - 3 * w / 8]],
                               rtol=1e-6)
    trainer.refresh()
    np.testing.assert_allclose(weight.numpy(), [[w - 0.75]], rtol=1e-6)  # half the carry


# ----- the launcher ------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["--servers", "10.0.0.5:7001"], "10.0.0.5:7001 is not on this machine"),
    (["--server_num", "0"], "--server_num must be at least 1"),
    (["--servers", "127.0.0.1:7001", "--server_num", "2"], "lists 1 endpoints but "
                                                             "--server_num is 2"),
    (["--trainers", "127.0.0.1:7001,127.0.0.1:7001"], "given more than once"),
    (["--servers", "127.0.0.1:70001"], "is not HOST:PORT"),
    (["--servers", "127.0.0.1:7001", "--trainers", "127.0.0.1:7001"], "both a server's and"),
    (["--server_num", "2", "--nproc_per_node", "2"], "--nproc_per_node belong to collective"),
])
def test_launcher_mistakes_fail_clearly(capsys, args, message):
    assert launch_main(args + [str(WORKERS / "ps_fleet_ctr.py")]) == 2
    assert message in capsys.readouterr().err
    assert launch_main(["--server_num", "1", "no_such_script.py"]) == 2
    assert "no script no_such_script.py" in capsys.readouterr().err


# ----- jobs of 2 servers x 2 trainers ------------------------------------------------

def test_sync_job_equals_one_process_on_the_union_batches(tmp_path, data):
    rc, output, logs, results = run_ps_job(tmp_path, "sync", 0, 1)
    assert rc == 0, describe(tmp_path / "log", output)
    assert sorted(logs) == ["serverlog.0", "serverlog.1", "workerlog.0", "workerlog.1"]
    for i in (0, 1):
        assert f"server {i} of 2 at 127.0.0.1:" in logs[f"serverlog.{i}"]
        assert f"skiff ps server {i}/2 listening" in logs[f"serverlog.{i}"]
        assert results[i]["worker_index"] == i and results[i]["is_first_worker"] == (i == 0)
        assert (results[i]["worker_num"], results[i]["server_num"]) == (2, 2)
    check_equals_single_process(results[0], data, "fleet sync 2x2")


@pytest.fixture(scope="module")
def converged_auc(data):
    """The AUC one process reaches on batches of 32 over EPOCHS passes."""
    return single_process(data, ps_ctr.BATCH // 2, EPOCHS)["eval"][1]


def test_geo_job_reaches_the_single_process_auc(tmp_path, converged_auc):
    rc, output, logs, results = run_ps_job(
        tmp_path, "geo", K_STEPS, EPOCHS, ("--server_num", "2", "--worker_num", "2"))
    assert rc == 0, describe(tmp_path / "log", output)
    auc = results[0]["eval"][1]
    print(f"\nfleet geo 2x2 (k_steps {K_STEPS}, {EPOCHS} epochs): auc {auc:.4f}; one process: "
          f"{converged_auc:.4f}")
    assert abs(auc - converged_auc) <= AUC_BOUND


def test_async_job_reaches_the_single_process_auc(tmp_path, converged_auc):
    servers = ",".join(f"127.0.0.1:{p}" for p in free_ports(2))
    rc, output, logs, results = run_ps_job(tmp_path, "async", 0, EPOCHS,
                                           ("--servers", servers, "--trainer_num", "2"))
    assert rc == 0, describe(tmp_path / "log", output)
    assert results[0]["server_endpoints"] == servers.split(",")
    auc = results[0]["eval"][1]
    print(f"\nfleet async 2x2 ({EPOCHS} epochs): auc {auc:.4f}; one process: "
          f"{converged_auc:.4f}")
    assert abs(auc - converged_auc) <= AUC_BOUND


def test_a_failing_trainer_ends_the_job(tmp_path):
    start = time.monotonic()
    rc, output, logs, _ = run_ps_job(tmp_path, "async", 0, 1, fail="trainer1")
    assert rc == 3, describe(tmp_path / "log", output)
    assert f"trainer 1 exited with code 3; stopping the job (its log: " \
           f"{tmp_path / 'log' / 'workerlog.1'})" in output
    assert time.monotonic() - start < 30


def test_a_killed_server_restarts_from_its_checkpoint(tmp_path, data):
    """With --ps_checkpoint_dir the launcher starts a server killed mid-job again; it resumes
    from its checkpoint, the trainers replay the rest, and the job ends as if nothing
    happened (sync: equal to one process)."""
    rc, output, logs, results = run_ps_job(
        tmp_path, "sync", 0, 1, ("--server_num", "2", "--trainer_num", "2",
                                 "--ps_checkpoint_dir", str(tmp_path / "ckpt"),
                                 "--ps_checkpoint_secs", "0.2"), fail="killserver1")
    assert rc == 0, describe(tmp_path / "log", output)
    assert (tmp_path / "out" / "killed").exists()
    assert "server 1 exited with code -9; starting it again from its last checkpoint" in output
    assert "skiff ps server 1/2: restored checkpoint" in logs["serverlog.1"]
    for i in (0, 1):
        assert "parameter server 1 (127.0.0.1:" in logs[f"workerlog.{i}"], logs
        assert "replayed" in logs[f"workerlog.{i}"]
    check_equals_single_process(results[0], data, "fleet sync with a killed server")


def test_a_dying_server_ends_the_job(tmp_path):
    rc, output, logs, _ = run_ps_job(tmp_path, "async", 0, 1, fail="server1")
    assert rc == 4, describe(tmp_path / "log", output)
    assert f"server 1 exited with code 4 and the servers keep no checkpoints " \
           f"(--ps_checkpoint_dir); stopping the job (its log: " \
           f"{tmp_path / 'log' / 'serverlog.1'})" in output
