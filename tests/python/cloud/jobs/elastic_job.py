"""An elastic job for the job service's tests: ElasticTrainer on a small regression
(2,000 random samples, a 2-layer MLP), argv[1] epochs, each step slowed to 20 ms so that
the test can kill a worker while the job runs. Prints its progress every 20 steps."""
import os
import sys
import time

import numpy as np

import skiff
from skiff.distributed import elastic

epochs = int(sys.argv[1])
rng = np.random.default_rng(5)
x = rng.standard_normal([2000, 8]).astype(np.float32)
y = (x @ rng.standard_normal([8, 1])).astype(np.float32)
data = [(x[i], y[i]) for i in range(len(x))]
skiff.seed(1)
model = skiff.nn.Sequential(skiff.nn.Linear(8, 16), skiff.nn.Tanh(), skiff.nn.Linear(16, 1))
opt = skiff.optimizer.SGD(learning_rate=0.05, parameters=model.parameters())


def on_step(info):
    time.sleep(0.02)
    if info["step"] % 20 == 0:
        print(f"pid {os.getpid()} step {info['step']} world {info['world_size']}",
              flush=True)


trainer = elastic.ElasticTrainer(
    model, opt, data, batch_size=32, loss_fn=lambda m, a, b: ((m(a) - b) ** 2).mean(),
    step_timeout=10.0, wait_timeout=60.0, on_step=on_step)
steps = trainer.fit(epochs=epochs)
print(f"pid {os.getpid()} done after {steps} steps", flush=True)
