"""Every collective for every dtype against numpy: each rank knows what every other rank
holds (the data is a function of the rank), so each checks its own results."""
import sys

import numpy as np

import skiff
import skiff.distributed as dist

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
DTYPES = ["float32", "float64", "int32", "int64"]
SHAPES = [[1], [3, 5], [1000]]


def data(r, shape, dtype, salt=0):
    rng = np.random.default_rng(1000 * salt + r)
    if dtype.startswith("float"):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-5, 6, shape).astype(dtype)


def check(what, got, want, dtype):
    got = np.asarray(got)
    tol = {"float32": 1e-5, "float64": 1e-12}.get(dtype, 0)
    if got.shape != want.shape or not np.allclose(got, want, rtol=tol, atol=tol):
        sys.exit(f"rank {rank}: {what} {dtype}: got\n{got}\nwant\n{want}")


REDUCE = {"sum": lambda a: np.sum(a, axis=0), "max": lambda a: np.max(a, axis=0),
          "min": lambda a: np.min(a, axis=0), "prod": lambda a: np.prod(a, axis=0),
          "avg": lambda a: np.mean(a, axis=0)}

for dtype in DTYPES:
    for shape in SHAPES:
        everyone = np.stack([data(r, shape, dtype) for r in range(n)])
        for op, fn in REDUCE.items():
            if op == "avg" and not dtype.startswith("float"):
                continue
            x = skiff.to_tensor(data(rank, shape, dtype))
            dist.all_reduce(x, op=op)
            check(f"all_reduce {op} {shape}", x.numpy(), fn(everyone).astype(dtype), dtype)
            x = skiff.to_tensor(data(rank, shape, dtype))
            dist.reduce(x, dst=n - 1, op=op)
            want = fn(everyone).astype(dtype) if rank == n - 1 else data(rank, shape, dtype)
            check(f"reduce {op} {shape}", x.numpy(), want, dtype)
        x = skiff.to_tensor(data(rank, shape, dtype))
        dist.broadcast(x, src=1)
        check(f"broadcast {shape}", x.numpy(), everyone[1], dtype)
        got = []
        dist.all_gather(got, skiff.to_tensor(data(rank, shape, dtype)))
        check(f"all_gather {shape}", np.stack([t.numpy() for t in got]), everyone, dtype)
        # Rank r sends part p = data(r, salt=p) to rank p.
        parts = [skiff.to_tensor(data(rank, shape, dtype, salt=p + 1)) for p in range(n)]
        out = skiff.to_tensor(np.zeros(shape, dtype))
        dist.reduce_scatter(out, parts)
        want = np.sum([data(r, shape, dtype, salt=rank + 1) for r in range(n)], axis=0)
        check(f"reduce_scatter {shape}", out.numpy(), want.astype(dtype), dtype)
        outs = []
        dist.alltoall(parts, outs)
        check(f"alltoall {shape}", np.stack([t.numpy() for t in outs]),
              np.stack([data(r, shape, dtype, salt=rank + 1) for r in range(n)]), dtype)
        out = skiff.to_tensor(np.zeros(shape, dtype))
        dist.scatter(out, parts if rank == 0 else None, src=0)
        check(f"scatter {shape}", out.numpy(), data(0, shape, dtype, salt=rank + 1), dtype)
        # A ring of send/recv: even ranks send first.
        x = skiff.to_tensor(data(rank, shape, dtype))
        y = skiff.to_tensor(np.zeros(shape, dtype))
        right, left = (rank + 1) % n, (rank - 1) % n
        if rank % 2 == 0:
            dist.send(x, dst=right)
            dist.recv(y, src=left)
        else:
            dist.recv(y, src=left)
            dist.send(x, dst=right)
        check(f"send/recv {shape}", y.numpy(), data(left, shape, dtype), dtype)

b = skiff.to_tensor(np.array([rank == 0, True, rank == 1]))
dist.all_reduce(b, op="max")
check("all_reduce bool max", b.numpy(), np.array([True, True, True]), "bool")
b = skiff.to_tensor(np.array([rank == 0, True, rank == 1]))
dist.all_reduce(b, op="min")
check("all_reduce bool min", b.numpy(), np.array([n == 1, True, n == 1]), "bool")

# bfloat16: small integers are exact; sums are rounded once per step of the ring.
for op, fn in REDUCE.items():
    x = skiff.to_tensor(data(rank, [7], "int32").astype(np.float32)).astype("bfloat16")
    dist.all_reduce(x, op=op)
    want = fn(np.stack([data(r, [7], "int32") for r in range(n)]).astype(np.float64))
    got = x.astype("float32").numpy()
    if not np.allclose(got, want, rtol=2 ** -7, atol=0):
        sys.exit(f"rank {rank}: all_reduce {op} bfloat16: got {got}, want {want}")
x = skiff.to_tensor(np.full([5], float(rank), np.float32)).astype("bfloat16")
dist.broadcast(x, src=n - 1)
check("broadcast bfloat16", x.astype("float32").numpy(), np.full([5], n - 1.0, np.float32),
      "float32")
got = []
dist.all_gather(got, skiff.to_tensor(np.full([2], float(rank), np.float32)).astype("bfloat16"))
check("all_gather bfloat16", np.stack([t.astype("float32").numpy() for t in got]),
      np.repeat(np.arange(n, dtype=np.float32)[:, None], 2, axis=1), "float32")

objects = []
dist.all_gather_object(objects, {"rank": rank, "name": "w" * rank})
if objects != [{"rank": r, "name": "w" * r} for r in range(n)]:
    sys.exit(f"rank {rank}: all_gather_object gave {objects}")

# A group of the even ranks: only its members reduce.
evens = dist.new_group([r for r in range(n) if r % 2 == 0])
x = skiff.to_tensor(np.array([float(rank)]))
dist.all_reduce(x, group=evens)
want = sum(r for r in range(n) if r % 2 == 0) if rank % 2 == 0 else rank
check("group all_reduce", x.numpy(), np.array([float(want)]), "float64")
dist.barrier()
print(f"rank {rank} of {n}: all collectives match numpy")
