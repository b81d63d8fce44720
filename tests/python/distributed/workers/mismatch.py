"""Ranks that pass tensors of different shapes to one all_reduce: each must fail with a
clear error (the op and the ranks' tensors), never hang or crash."""
import numpy as np

import skiff
import skiff.distributed as dist

dist.init_parallel_env()
rank = dist.get_rank()
x = skiff.to_tensor(np.ones([3 + 2 * rank], dtype=np.float32))
try:
    dist.all_reduce(x)
except skiff.Error as e:
    print(f"rank {rank} caught: {e}")
    raise SystemExit(3)
print(f"rank {rank}: no error")
