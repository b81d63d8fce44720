"""Measures, on each rank of a 2-rank job, the bytes skiff's allocator holds for the
parameters (after building and wrapping), the gradients (after a backward) and the
optimizer state (after the first step) of a 4-layer 64-wide MLP: first unsharded, then
sharded at level argv[1]. Writes {"unsharded": {...}, "sharded": {...}} to
argv[2].RANK.json."""
import json
import sys

import skiff
import skiff.distributed as dist
from skiff.device import memory_allocated
from skiff.distributed.sharding import group_sharded_parallel
from sharding_model import batch

SIZES = (64, 64, 64, 64, 64)  # 4 weights and 4 biases: they split evenly over 2 ranks


def measure(level):
    start = memory_allocated()
    skiff.seed(7)
    model = skiff.nn.Sequential(*[skiff.nn.Linear(n, n) for n in SIZES[1:]])
    opt = skiff.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    if level is not None:
        model, opt, _ = group_sharded_parallel(model, opt, level, segment_size=1)
    built = memory_allocated()
    x, y = batch(0)
    x = skiff.to_tensor(x.numpy()[:, :1].repeat(SIZES[0], axis=1))
    loss = ((model(x) - skiff.to_tensor(y.numpy()[:, :1])) ** 2).mean()
    loss.backward()
    del x, y, loss
    backward = memory_allocated()
    opt.step()
    stepped = memory_allocated()
    return {"parameters": built - start, "gradients": backward - built,
            "optimizer_state": stepped - backward}


if __name__ == "__main__":
    skiff.set_default_dtype("float64")
    dist.init_parallel_env()
    figures = {"unsharded": measure(None), "sharded": measure(sys.argv[1])}
    with open(f"{sys.argv[2]}.{dist.get_rank()}.json", "w") as f:
        json.dump(figures, f)
