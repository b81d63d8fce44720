"""Rank 0 dies (SIGKILL) before a collective: rank 1's all_reduce must end in a
CommunicationError naming the op and the rank, not hang."""
import os
import signal
import sys

import numpy as np

import skiff
import skiff.distributed as dist

dist.init_parallel_env()
rank = dist.get_rank()
dist.barrier()
if rank == 0:
    os.kill(os.getpid(), signal.SIGKILL)
try:
    dist.all_reduce(skiff.to_tensor(np.ones([4], np.float32)))
except dist.CommunicationError as e:
    print(f"rank {rank} caught CommunicationError: {e}", flush=True)
    sys.exit(7)
