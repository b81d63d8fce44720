"""all_reduce from 1 element to 64 MiB of float32."""
import sys

import numpy as np

import skiff
import skiff.distributed as dist

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
for count in [1, 1024, 1 << 20, 1 << 24]:  # 4 B .. 64 MiB
    x = skiff.to_tensor(np.full([count], rank + 1, dtype=np.float32))
    x.numpy(copy=False)[count // 2] = 0.5 * rank  # written in place
    dist.all_reduce(x)
    got = x.numpy()
    want_rest, want_mid = n * (n + 1) / 2, 0.5 * n * (n - 1) / 2
    bad = np.flatnonzero(got != want_rest)
    if count > 1 and (got[count // 2] != want_mid or bad.size != 1):
        sys.exit(f"rank {rank}: all_reduce of {count} floats is wrong at {bad[:5]}")
print(f"rank {rank}: all_reduce up to 64 MiB matches")
