"""In an mp2 job: each model-parallel op on known inputs, forward and gradient, and dropout
inside and outside the model-parallel rng state; writes argv[1].RANK.npz (what each
array is: see test_tensor_parallel.py)."""
import sys

import numpy as np

import skiff
import skiff.distributed as dist
import skiff.nn.functional as F
from skiff.distributed import fleet
from skiff.distributed.fleet.meta_parallel import mp_ops
from skiff.distributed.fleet.meta_parallel.random import (get_rng_state_tracker,
                                                          model_parallel_random_seed)

strategy = fleet.DistributedStrategy()
strategy.hybrid_configs = {"mp_degree": 2}
fleet.init(is_collective=True, strategy=strategy)
skiff.set_default_dtype("float64")
rank = fleet.get_hybrid_communicate_group().get_model_parallel_rank()


def array(seed, *shape):
    return np.random.RandomState(seed).rand(*shape)


def run(op, x, weight):
    """op(x), and the gradient of sum(op(x) * weight) with respect to x."""
    x = skiff.to_tensor(x, stop_gradient=False)
    y = op(x)
    (y * skiff.to_tensor(weight)).sum().backward()
    return y.numpy(), x.grad.numpy()


out = {}
out["identity.y"], out["identity.grad"] = run(mp_ops._c_identity, array(1, 4, 6),
                                              array(10 + rank, 4, 6))
out["allreduce.y"], out["allreduce.grad"] = run(mp_ops._mp_allreduce, array(20 + rank, 4, 6),
                                                array(30 + rank, 4, 6))
out["split.y"], out["split.grad"] = run(mp_ops._c_split, array(1, 4, 6), array(10 + rank, 4, 3))
out["concat.y"], out["concat.grad"] = run(mp_ops._c_concat, array(20 + rank, 4, 3),
                                          array(1, 4, 6))
logits = array(40, 5, 8)[:, rank * 4:(rank + 1) * 4]
label = skiff.to_tensor(np.array([0, 3, 4, 7, -100]))
out["ce.loss"], out["ce.grad"] = run(
    lambda x: mp_ops._c_softmax_with_cross_entropy(x, label), logits, array(41, 5, 1))

model_parallel_random_seed(7)
ones = skiff.ones([64])
out["dropout.before"] = F.dropout(ones, 0.5).numpy()
with get_rng_state_tracker().rng_state():
    out["dropout.inside"] = F.dropout(ones, 0.5).numpy()
out["dropout.after"] = F.dropout(ones, 0.5).numpy()
model_parallel_random_seed()
out["rand.unseeded"] = skiff.rand([8]).numpy()
np.savez(f"{sys.argv[1]}.{dist.get_rank()}.npz", **out)
