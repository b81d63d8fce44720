"""DataParallel on n ranks against one process training on the global batch: the same
parameters after a few SGD steps (float64: 1e-10), with a parameter that only rank 0
uses, and a step whose gradients accumulate over two micro-batches under no_sync().
argv[1]: "eager" or "to_static"; argv[2]: "float64" (1e-10) or "float32" (1e-5)."""
import sys

import numpy as np

import skiff
import skiff.distributed as dist
import skiff.nn as nn

mode, dtype = sys.argv[1], sys.argv[2]
tolerance = {"float64": 1e-10, "float32": 1e-5}[dtype]
dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 3)
        self.extra = nn.Linear(16, 16)  # used only for rank 0's samples

    def forward(self, x, use_extra=False):
        h = skiff.tanh(self.fc1(x))
        if use_extra:
            h = h + skiff.tanh(self.extra(h))
        return self.fc2(h)


def make(seed):
    skiff.seed(seed)
    return Net().double() if dtype == "float64" else Net()


per_rank, steps = 4, 4
rng = np.random.default_rng(7)
X = rng.standard_normal([steps, 2, n * per_rank, 6]).astype(dtype)  # step, micro, sample
Y = rng.standard_normal([steps, 2, n * per_rank, 3]).astype(dtype)


def chunk_loss(model, step, micro, r):
    rows = slice(r * per_rank, (r + 1) * per_rank)
    out = model(skiff.to_tensor(X[step, micro, rows]), use_extra=(r == 0))
    return ((out - skiff.to_tensor(Y[step, micro, rows])) ** 2).mean()


# The reference: one process, the mean over ranks of each rank's loss.
reference = make(1)
ref_opt = skiff.optimizer.SGD(learning_rate=0.1, parameters=reference.parameters())
# The data-parallel model starts from other values: rank 0's are broadcast.
local = make(1 if rank == 0 else 100 + rank)
model = dist.DataParallel(local)
if mode == "to_static":
    local.forward = skiff.jit.to_static(local.forward)
opt = skiff.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())

for step in range(steps):
    micro_batches = 2 if step == 2 else 1
    ref_loss = 0
    for micro in range(micro_batches):
        ref_loss = ref_loss + sum(chunk_loss(reference, step, micro, r) for r in range(n)) / n
    ref_loss.backward()
    ref_opt.step()
    ref_opt.clear_grad()

    if micro_batches == 2:
        with model.no_sync():
            chunk_loss(model, step, 0, rank).backward()
    chunk_loss(model, step, micro_batches - 1, rank).backward()
    opt.step()
    opt.clear_grad()

for (name, p), q in zip(local.named_parameters(), reference.parameters()):
    diff = np.abs(p.numpy() - q.numpy()).max()
    if diff > tolerance:
        sys.exit(f"rank {rank}: {name} differs from the single process by {diff}")
print(f"rank {rank}: {mode} {dtype} DataParallel matches the single process")
