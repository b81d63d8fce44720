"""A Paddle-style parameter-server script of the CTR model (ps_ctr.py) in dygraph, run by
the launcher as every server and every trainer of the job:

    python -m skiff.distributed.launch --server_num 2 --trainer_num 2 ps_fleet_ctr.py \\
        MODE K_STEPS EPOCHS OUT [FAIL]

MODE is sync, async or geo (a_sync_configs k_steps K_STEPS); each trainer trains EPOCHS
passes, on its share of each batch of 64, through fleet.distributed_optimizer. Trainer I
writes its role and trainer 0 also the evaluation (loss, AUC) and the final parameters (the
rows of the vocabulary's ids as "emb", the MLP's by name) to OUT/trainerI.json;
servers print their role. FAIL "trainer1" makes trainer 1 exit with status 3 once
connected; "server1" makes server 1 exit with status 4 instead of serving; "killserver1"
makes server 1 kill itself (SIGKILL) once it has written a checkpoint (under the launcher's
--ps_checkpoint_dir), the first time only (it leaves OUT/killed behind)."""
import json
import os
import signal
import sys
import threading
import time

import ps_ctr
import skiff
from skiff.distributed import fleet, ps

mode, k_steps, epochs, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
fail = sys.argv[5] if len(sys.argv) > 5 else ""

strategy = fleet.DistributedStrategy()
strategy.a_sync = mode != "sync"
if mode == "geo":
    strategy.a_sync_configs = {"k_steps": k_steps}
fleet.init(is_collective=False, strategy=strategy)

if fleet.is_server():
    print(f"server {fleet.server_index()} of {fleet.server_num()} at "
          f"{fleet.server_endpoints()[fleet.server_index()]}", flush=True)
    if fail == f"server{fleet.server_index()}":
        sys.exit(4)
    killed = os.path.join(out, "killed")
    if fail == f"killserver{fleet.server_index()}" and not os.path.exists(killed):
        latest = os.path.join(os.environ["SKIFF_PS_CHECKPOINT_DIR"],
                              f"shard{fleet.server_index()}-of-{fleet.server_num()}", "LATEST")

        def kill_after_a_checkpoint():
            while not os.path.exists(latest):
                time.sleep(0.01)
            open(killed, "w").close()
            os.kill(os.getpid(), signal.SIGKILL)

        threading.Thread(target=kill_after_a_checkpoint, daemon=True).start()
    fleet.init_server()
    fleet.run_server()
    sys.exit(0)

fleet.init_worker()
if fail == f"trainer{fleet.worker_index()}":
    sys.exit(3)
skiff.seed(0)  # trainer 0's dense values start every trainer (and the reference)
net = ps_ctr.CTR(ps.DistributedEmbedding("emb", ps_ctr.DIM, init=ps_ctr.EMBEDDING_INIT,
                                         optimizer=ps_ctr.SGD))
model = fleet.distributed_model(net)
opt = fleet.distributed_optimizer(skiff.optimizer.SGD(learning_rate=ps_ctr.LR,
                                                      parameters=model.parameters()))
vocab, train_ids, train_labels, eval_ids, eval_labels = ps_ctr.make_data()
share = ps_ctr.BATCH // fleet.worker_num()
first = fleet.worker_index() * share
for epoch in range(epochs):
    for step in range(ps_ctr.STEPS):
        rows = slice(step * ps_ctr.BATCH + first, step * ps_ctr.BATCH + first + share)
        ps_ctr.loss_of(model, train_ids[rows], train_labels[rows]).backward()
        opt.step()
        opt.clear_grad()
fleet.barrier_worker()  # every trainer's updates are on the servers, and taken here
result = {"worker_index": fleet.worker_index(), "worker_num": fleet.worker_num(),
          "server_num": fleet.server_num(), "server_endpoints": fleet.server_endpoints(),
          "is_first_worker": fleet.is_first_worker(), "is_worker": fleet.is_worker(),
          "is_server": fleet.is_server()}
if fleet.is_first_worker():
    result["eval"] = ps_ctr.evaluate(model, eval_ids, eval_labels)
    result["state"] = {"emb": net.embedding.pull(vocab.reshape(-1)).tolist(), **{
        name: p.numpy().tolist() for name, p in net.named_parameters() if "fc" in name}}
with open(os.path.join(out, f"trainer{fleet.worker_index()}.json"), "w") as f:
    json.dump(result, f)
fleet.stop_worker()
