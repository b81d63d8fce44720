"""A parameter-server trainer of the static CTR model (ps_static.py): trainer argv[2] of
argv[3] on the servers argv[1] (comma-separated) in mode argv[4] runs argv[5] steps of the
split program, each on its share of the step's batch of 64 (ids fed as they are: any int64).
Writes to argv[6] (JSON) its losses, the dense values it started from and ended with, and
(trainer 0) the final rows of every vocabulary id."""
import json
import sys

import numpy as np
import ps_ctr
import ps_static

import skiff
from skiff import static
from skiff.distributed import ps
from skiff.distributed.ps import program as ps_program

endpoints, trainer_id, trainers, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4]
steps, out = int(sys.argv[5]), sys.argv[6]

skiff.enable_static()
skiff.seed(100 + trainer_id)  # each trainer's startup values differ: trainer 0's must win
minimizer = ps_program.DistributedMinimizer(ps_static.sgd(), mode=mode)
main, startup, loss = ps_static.build(minimizer=minimizer)
exe = static.Executor()
exe.run(startup)
connection = ps.init(endpoints.split(","), trainer_id, trainers, mode=mode, connect_secs=20.0)
ps_program.init_worker(connection)
scope = static.global_scope()


def dense_values():
    return {name: scope.get(name).numpy().tolist() for name in ps_static.DENSE}


initial = dense_values()
vocab, train_ids, train_labels, _, _ = ps_ctr.make_data()
share = ps_ctr.BATCH // trainers
losses = []
for step in range(steps):
    rows = slice(step * ps_ctr.BATCH + trainer_id * share,
                 step * ps_ctr.BATCH + (trainer_id + 1) * share)
    value, = exe.run(main, feed={"ids": train_ids[rows], "label": train_labels[rows]},
                     fetch_list=[loss])
    losses.append(float(value))
result = {"losses": losses, "initial": initial, "final": dense_values(),
          "next_step": skiff._C.ps_ops_step()}
if trainer_id == 0:
    ids = np.ascontiguousarray(vocab.reshape(-1))
    result["rows"] = connection.client.pull_sparse(ps_static.TABLE, ids, ps_ctr.DIM).tolist()
ps_program.stop_worker()
with open(out, "w") as f:
    json.dump(result, f)
