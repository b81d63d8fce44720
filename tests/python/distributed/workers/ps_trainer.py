"""A parameter-server trainer of the CTR model (ps_ctr.py): trainer argv[2] of argv[3] on
the servers argv[1] (comma-separated) in mode argv[4], steps [argv[5], argv[6]); each step
trains on its share of the step's batch of 64. Loads the tables from argv[7] first when it
is not "-"; writes its losses and what the servers applied (progress) to argv[8] (JSON).
An optional argv[9] pauses that many seconds after each step; argv[8] + ".started" is
written after the fifth step."""
import json
import sys
import time

import ps_ctr
from skiff.distributed import ps

endpoints, trainer_id, trainers, mode = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
    sys.argv[4]
first, last, load_from, out = int(sys.argv[5]), int(sys.argv[6]), sys.argv[7], sys.argv[8]
pause = float(sys.argv[9]) if len(sys.argv) > 9 else 0.0

ps.init(endpoints.split(","), trainer_id, trainers, mode=mode, connect_secs=20.0)
_, train_ids, train_labels, _, _ = ps_ctr.make_data()
embedding = ps.DistributedEmbedding("emb", ps_ctr.DIM, init=ps_ctr.EMBEDDING_INIT,
                                    optimizer=ps_ctr.SGD)
model = ps_ctr.CTR(embedding)
trainer = ps.Trainer(model, optimizer=ps_ctr.SGD, first_step=first)
if load_from != "-":
    trainer.load(load_from)
share = ps_ctr.BATCH // trainers
losses = []
for step in range(first, last):
    rows = slice(step * ps_ctr.BATCH + trainer_id * share,
                 step * ps_ctr.BATCH + (trainer_id + 1) * share)
    loss = ps_ctr.loss_of(model, train_ids[rows], train_labels[rows])
    loss.backward()
    trainer.step()
    losses.append(float(loss))
    if step == first + 4:
        with open(out + ".started", "w") as f:
            f.write("started\n")
    time.sleep(pause)
with open(out, "w") as f:
    json.dump({"losses": losses, "progress": ps.connection().progress()}, f)
