"""A Paddle-style parameter-server script of the static CTR model (ps_static.py), run by the
launcher as every server and every trainer of the job:

    python -m skiff.distributed.launch --server_num 2 --trainer_num 2 ps_fleet_static.py \\
        MODE STEPS OUT [K_STEPS] [--start S] [--save DIR] [--load DIR]

Every process builds the program and minimizes it through fleet.distributed_optimizer
(which splits it for the servers); servers then serve, trainers run the startup program,
init_worker, and STEPS steps of MODE (sync, async, or geo syncing every K_STEPS steps),
each on its share of the step's batch of 64 (ids fed as they are: any int64; after
ps_ctr.STEPS steps the data starts over). In geo mode every trainer then sends its last
deltas and takes the job's values (fleet.barrier_worker). Trainer I writes to
OUT/trainerI.json its losses and the dense values it started from (trainer 0's, pulled by
init_worker) and ended with; trainer 0 also the final rows of every vocabulary id."""
import argparse
import json
import os

import numpy as np
import ps_ctr
import ps_static

import skiff
from skiff import static
from skiff.distributed import fleet, ps

parser = argparse.ArgumentParser()
parser.add_argument("mode")
parser.add_argument("steps", type=int)
parser.add_argument("out")
parser.add_argument("k_steps", type=int, nargs="?", default=0)
parser.add_argument("--start", type=int, default=0)
parser.add_argument("--save")
parser.add_argument("--load")
args = parser.parse_args()
mode, steps, out, k_steps = args.mode, args.steps, args.out, args.k_steps

skiff.enable_static()
main, startup, loss = ps_static.build()  # the model in programs of its own, not minimized

strategy = fleet.DistributedStrategy()
strategy.a_sync = mode != "sync"
if mode == "geo":
    strategy.a_sync_configs = {"k_steps": k_steps}
fleet.init(is_collective=False, strategy=strategy)
with static.program_guard(main, startup):
    opt = fleet.distributed_optimizer(skiff.optimizer.SGD(learning_rate=ps_ctr.LR), strategy)
    opt.minimize(loss)

if fleet.is_server():
    fleet.init_server(args.load)
    fleet.run_server()
    raise SystemExit(0)

skiff.seed(100 + fleet.worker_index())  # each trainer's startup values differ: trainer 0's win
exe = static.Executor()
exe.run(startup)
fleet.init_worker()  # creates the tables, hands over trainer 0's dense values, pulls them
scope = static.global_scope()


def dense_values():
    return {name: scope.get(name).numpy().tolist() for name in ps_static.DENSE}


initial = dense_values()
vocab, train_ids, train_labels, _, _ = ps_ctr.make_data()
share = ps_ctr.BATCH // fleet.worker_num()
first = fleet.worker_index() * share
losses = []
for step in range(args.start, args.start + steps):
    at = step % ps_ctr.STEPS * ps_ctr.BATCH + first
    rows = slice(at, at + share)
    value, = exe.run(main, feed={"ids": train_ids[rows], "label": train_labels[rows]},
                     fetch_list=[loss])
    losses.append(float(value))
# Sync mode: the last step's barrier waited for every trainer's update, which its pulls took.
if mode == "geo":
    fleet.barrier_worker()  # every trainer's last deltas sent; the job's values taken
result = {"losses": losses, "initial": initial, "final": dense_values(),
          "next_step": skiff._C.ps_ops_step()}
if fleet.is_first_worker():
    ids = np.ascontiguousarray(vocab.reshape(-1))
    result["rows"] = ps.connection().client.pull_sparse(ps_static.TABLE, ids,
                                                        ps_ctr.DIM).tolist()
    if args.save:
        fleet.save_persistables(exe, args.save)
with open(os.path.join(out, f"trainer{fleet.worker_index()}.json"), "w") as f:
    json.dump(result, f)
fleet.stop_worker()
