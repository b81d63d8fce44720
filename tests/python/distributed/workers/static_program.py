"""Collectives as ops of a static program, run by the executor, with their gradients:
c_allreduce_sum's is an all-reduce of the output's gradient, c_allgather's a
reduce-scatter. Checked against numpy."""
import sys

import numpy as np

import skiff
import skiff.distributed as dist
import skiff.static as static

dist.init_parallel_env()
rank, n = dist.get_rank(), dist.get_world_size()
skiff.enable_static()
xs = [np.arange(3.0) + 10 * r for r in range(n)]
cs = [np.linspace(-1, 1, 3 * n) * (r + 1) for r in range(n)]

main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    x = static.data("x", [3], "float64")
    x.stop_gradient = False
    c = static.data("c", [3 * n], "float64")
    y = x * 2.0
    dist.all_reduce(y)                       # c_allreduce_sum
    gathered = []
    dist.all_gather(gathered, x)             # c_allgather, split
    g = skiff.concat(gathered, axis=0)
    loss = (y * y).sum() + (g * c).sum()
    dx, = static.gradients(loss, [x])
exe = static.Executor()
exe.run(startup)
y_got, g_got, dx_got = exe.run(main, feed={"x": xs[rank], "c": cs[rank]},
                               fetch_list=[y, g, dx])

y_want = 2.0 * sum(xs)
# Every rank's loss depends on every x: the gradient of the sum of the ranks' losses.
dx_want = 2 * n * 2.0 * y_want + sum(cs)[rank * 3:(rank + 1) * 3]
for what, got, want in [("y", y_got, y_want), ("all_gather", g_got, np.concatenate(xs)),
                        ("dx", dx_got, dx_want)]:
    if not np.allclose(got, want, rtol=1e-12):
        sys.exit(f"rank {rank}: {what}: got {got}, want {want}")
print(f"rank {rank}: collective ops in a program match numpy")

# fleet's static data parallelism: the startup program broadcasts rank 0's parameters (each
# rank initialised its own differently), the step averages the ranks' gradients (each rank
# fed different samples); both leave every rank with the same parameters, those a single
# process gets from the rank-averaged gradient.
from skiff.distributed import fleet  # noqa: E402

fleet.init(is_collective=True)
skiff.seed(100 + rank)
main, startup = static.Program(), static.Program()
with static.program_guard(main, startup):
    x = static.data("x2", [-1, 4], "float64")
    loss = (static.nn.fc(x, 1, bias_attr=False) ** 2).mean()
    fleet.distributed_optimizer(skiff.optimizer.SGD(learning_rate=0.125)).minimize(loss)
(w,) = [p.name for p in main.all_parameters()]
exe.run(startup)
w0 = np.array(static.global_scope().get(w))
feeds = [np.linspace(-1, 1, 8).reshape(2, 4) * (r + 1) for r in range(n)]
exe.run(main, feed={"x2": feeds[rank]})
w1 = np.array(static.global_scope().get(w))
skiff.disable_static()
firsts = []
dist.all_gather(firsts, skiff.to_tensor(w0))
# d mean((x w)^2) / dw = 2 x^T (x w) / rows, averaged over the ranks.
grad = sum(2 * f.T @ (f @ w0) / len(f) for f in feeds) / n
for what, got, want in [("broadcast parameters", [t.numpy() for t in firsts], [w0] * n),
                        ("averaged step", [w1], [w0 - 0.125 * grad])]:
    if not all(np.allclose(g, v, rtol=1e-12, atol=1e-14) for g, v in zip(got, want)):
        sys.exit(f"rank {rank}: fleet static {what}: got {got}, want {want}")
print(f"rank {rank}: fleet's static data parallelism matches numpy")
