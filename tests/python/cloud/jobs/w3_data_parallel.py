"""W3 as a job: the CNN of examples/fashion_mnist.py trained data-parallel (DataParallel,
each rank its share of every batch of 64) on the first 4096 Fashion-MNIST training images
for argv[1] steps with Adam; rank 0 prints the loss every 10 steps and logs it for skiff
board under runs/. Run by the job service's tests as `skiff cloud submit`'s program."""
import sys

import numpy as np

import skiff
import skiff.distributed as dist
import skiff.nn.functional as F
from skiff.board import LogWriter
from skiff.vision.datasets import FashionMNIST

from fashion_mnist import ConvNet

steps = int(sys.argv[1])
dist.init_parallel_env()
rank, world = dist.get_rank(), dist.get_world_size()
print(f"rank {rank} of {world} starting", flush=True)
data = FashionMNIST(mode="train")
images = (data.images[:4096].astype(np.float32) / 127.5 - 1.0)[:, None]
labels = data.labels[:4096].astype(np.int64)
skiff.seed(3)
model = dist.DataParallel(ConvNet())
opt = skiff.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
writer = LogWriter("runs") if rank == 0 else None
per_rank = 64 // world
for step in range(steps):
    start = (step * 64 + rank * per_rank) % (len(labels) - per_rank)
    x = skiff.to_tensor(images[start:start + per_rank])
    y = skiff.to_tensor(labels[start:start + per_rank])
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.clear_grad()
    if rank == 0 and step % 10 == 0:
        print(f"step {step} loss {float(loss):.4f}", flush=True)
        writer.add_scalar("train/loss", float(loss), step)
if writer:
    writer.close()
print(f"rank {rank} done", flush=True)
