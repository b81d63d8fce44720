"""An elastic worker on W3: the CNN of examples/fashion_mnist.py on the first argv[3]
Fashion-MNIST training images (Debian's dataset-fashion-mnist), Adam with W3's cosine
decay (by the job's progress: a job short of workers takes more, smaller steps), batches
of 32 per worker, argv[4] epochs; every applied step logged (argv[1]/steps.PID.jsonl) and the test
accuracy on the 10000 test images written at the end (argv[1]/accuracy.PID)."""
import json
import logging
import math
import os
import pathlib
import sys
import time

import numpy as np

import skiff
import skiff.nn.functional as F
from skiff.distributed import elastic
from skiff.vision.datasets import FashionMNIST

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[4] / "examples"))
from fashion_mnist import ConvNet  # noqa: E402

logging.basicConfig(level=logging.INFO, format="%(created).3f %(message)s")
out_dir, min_workers = sys.argv[1], int(sys.argv[2])
samples, epochs = int(sys.argv[3]), int(sys.argv[4])


def arrays(mode, n=None):
    data = FashionMNIST(mode=mode)
    images = (data.images[:n].astype(np.float32) / 127.5 - 1.0)[:, None]
    return images, data.labels[:n]


train_x, train_y = arrays("train", samples)
test_x, test_y = arrays("test")
train = [(train_x[i], train_y[i]) for i in range(len(train_y))]

skiff.seed(3)
model = ConvNet()
opt = skiff.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
log = open(os.path.join(out_dir, f"steps.{os.getpid()}.jsonl"), "a", buffering=1)
trainer = elastic.ElasticTrainer(
    model, opt, train, batch_size=32, loss_fn=lambda m, x, y: F.cross_entropy(m(x), y),
    min_workers=min_workers, max_workers=4, step_timeout=10.0, wait_timeout=120.0,
    on_step=lambda info: log.write(json.dumps(dict(info, time=time.time())) + "\n"),
    lr_schedule=lambda progress: 0.5e-3 * (1 + math.cos(math.pi * progress / epochs)))
trainer.fit(epochs=epochs)
with skiff.no_grad():
    pred = np.concatenate([model(skiff.to_tensor(test_x[i:i + 1000])).numpy().argmax(axis=1)
                           for i in range(0, len(test_y), 1000)])
accuracy = float((pred == test_y).mean())
with open(os.path.join(out_dir, f"accuracy.{os.getpid()}"), "w") as f:
    f.write(f"{trainer.total_steps} {accuracy}\n")
print(f"worker {os.getpid()}: {trainer.total_steps} steps, accuracy {accuracy:.4f}")
