"""An elastic worker: an MLP on a synthetic 4-class problem (argv[3] epochs, 3), every applied
step logged (argv[1]/steps.PID.jsonl), the test accuracy written at the end
(argv[1]/accuracy.PID)."""
import json
import os
import sys
import time

import logging

import numpy as np

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from skiff.distributed import elastic

logging.basicConfig(level=logging.INFO, format="%(created).3f %(message)s")
out_dir = sys.argv[1]
min_workers = int(sys.argv[2]) if len(sys.argv) > 2 else 1
epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
rng = np.random.default_rng(0)
centers = rng.standard_normal([4, 20]) * 1.5
labels = rng.integers(0, 4, 2600)
features = (centers[labels] + rng.standard_normal([2600, 20])).astype(np.float32)
train = [(features[i], labels[i]) for i in range(2000)]
test_x, test_y = features[2000:], labels[2000:]

skiff.seed(1)
model = nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 4))
opt = skiff.optimizer.Momentum(learning_rate=0.05, momentum=0.9, parameters=model.parameters())
log = open(os.path.join(out_dir, f"steps.{os.getpid()}.jsonl"), "a", buffering=1)


def on_step(info):
    log.write(json.dumps(dict(info, time=time.time())) + "\n")


trainer = elastic.ElasticTrainer(
    model, opt, train, batch_size=16,
    loss_fn=lambda m, x, y: F.cross_entropy(m(x), y),
    min_workers=min_workers, max_workers=4, step_timeout=5.0, grace=0.5,
    wait_timeout=60.0, on_step=on_step,
    checkpoint_dir=os.environ.get("SKIFF_TEST_CHECKPOINTS"), checkpoint_every=10)
trainer.fit(epochs=epochs)
with skiff.no_grad():
    pred = model(skiff.to_tensor(test_x)).numpy().argmax(axis=1)
accuracy = float((pred == test_y).mean())
with open(os.path.join(out_dir, f"accuracy.{os.getpid()}"), "w") as f:
    f.write(f"{trainer.total_steps} {accuracy}\n")
print(f"worker {os.getpid()}: {trainer.total_steps} steps, accuracy {accuracy:.4f}")
