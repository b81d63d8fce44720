"""A static data-parallel training program (fleet.distributed_optimizer: c_allreduce_avg on
each gradient), compiled with skiff.jit.compile, trained on n ranks: the parameters equal
one process's training on the global batch (float64: 1e-10).

  compiled_training.py prepare DIR   one process: builds, saves and compiles the program
                                     (DIR/out: the executable and libmodel.so), and trains
                                     it in the executor on the global batches
                                     (DIR/reference.npz)
  compiled_training.py train DIR     each rank of a job: (a) runs the compiled executable,
                                     which joins the job from the launcher's environment,
                                     on its part of batch 0 for STEPS steps; (b) joins in
                                     Python and runs libmodel.so in this process (ring 0 is
                                     this process's communicator) on its part of each step's
                                     batch
"""
import ctypes
import os
import subprocess
import sys

import numpy as np

import skiff
import skiff.distributed as dist
import skiff.static as static
from skiff.distributed import fleet

STEPS, PER_RANK, RANKS = 4, 3, 2
what, folder = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(11)
X = rng.standard_normal([STEPS, RANKS * PER_RANK, 6])
Y = rng.standard_normal([STEPS, RANKS * PER_RANK, 3])


def prepare():
    skiff.enable_static()
    fleet.init(is_collective=True)  # a world of one: c_allreduce_avg leaves its input
    skiff.seed(3)
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup):
        x = static.data("x", [-1, 6], "float64")
        y = static.data("y", [-1, 3], "float64")
        h = static.nn.fc(x, 8, activation="tanh")
        loss = ((static.nn.fc(h, 3) - y) ** 2).mean()
        opt = fleet.distributed_optimizer(skiff.optimizer.Adam(learning_rate=0.05))
        opt.minimize(loss)
    types = [op.type for op in main.global_block().ops]
    assert types.count("c_allreduce_avg") == 4, types
    exe = static.Executor()
    exe.run(startup)
    prefix = os.path.join(folder, "train")
    static.save(main, prefix)
    params = [p.name for p in main.all_parameters()]
    skiff.jit.compile(prefix, os.path.join(folder, "out"), shared_library=True,
                      feeds=["x", "y"], fetches=[loss.name] + params)

    def train(batches):
        static.load(main, prefix)
        for s in batches:
            exe.run(main, feed={"x": X[s], "y": Y[s]})
        return [np.array(static.global_scope().get(p)) for p in params]

    fixed, varying = train([0] * STEPS), train(range(STEPS))
    np.savez(os.path.join(folder, "reference.npz"), names=np.array(params),
             **{f"fixed_{i}": v for i, v in enumerate(fixed)},
             **{f"varying_{i}": v for i, v in enumerate(varying)})


class SkiffTensor(ctypes.Structure):
    _fields_ = [("dtype", ctypes.c_int), ("rank", ctypes.c_int),
                ("dims", ctypes.c_int64 * 8), ("data", ctypes.c_void_p)]


def as_skiff_tensor(a):
    t = SkiffTensor(1, a.ndim)  # SKIFF_FLOAT64
    t.dims[:a.ndim] = a.shape
    t.data = a.ctypes.data
    return t


def check(what, got, want):
    err = max(float(np.abs(g - w).max()) for g, w in zip(got, want))
    if err > 1e-10:
        sys.exit(f"rank {rank}: {what}: the parameters differ from one process by {err}")
    print(f"rank {rank}: {what} matches one process (largest difference {err:.2e})")


def train():
    global rank
    rank = int(os.environ["SKIFF_RANK"])
    ref = np.load(os.path.join(folder, "reference.npz"))
    names = [str(n) for n in ref["names"]]
    mine = slice(rank * PER_RANK, (rank + 1) * PER_RANK)
    out = os.path.join(folder, "out")

    # (a) The executable joins the job itself (SKIFF_* from the launcher).
    for name, data in [("x", X[0][mine]), ("y", Y[0][mine])]:
        np.save(os.path.join(folder, f"{name}{rank}.npy"), np.ascontiguousarray(data))
    results = os.path.join(folder, f"results{rank}")
    subprocess.run([os.path.join(out, "model"), "--in", f"x={folder}/x{rank}.npy", "--in",
                    f"y={folder}/y{rank}.npy", "--repeat", str(STEPS), "--out", results],
                   check=True, timeout=120)
    check("the compiled executable",
          [np.load(os.path.join(results, f"{n}.npy")) for n in names],
          [ref[f"fixed_{i}"] for i in range(len(names))])

    # (b) The library in this process, on the communicator skiff.distributed made.
    dist.init_parallel_env(epoch=1)
    lib = ctypes.CDLL(os.path.join(out, "libmodel.so"))
    lib.skiff_model_create.restype = ctypes.c_void_p
    lib.skiff_model_create.argtypes = [ctypes.c_char_p]
    lib.skiff_model_run.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.skiff_model_variable.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    lib.skiff_model_destroy.argtypes = [ctypes.c_void_p]
    lib.skiff_model_last_error.restype = ctypes.c_char_p
    model = lib.skiff_model_create(None)
    if not model:
        sys.exit(f"rank {rank}: create: {lib.skiff_model_last_error().decode()}")
    outputs = (SkiffTensor * (1 + len(names)))()
    for s in range(STEPS):
        x, y = np.ascontiguousarray(X[s][mine]), np.ascontiguousarray(Y[s][mine])
        inputs = (SkiffTensor * 2)(as_skiff_tensor(x), as_skiff_tensor(y))
        if lib.skiff_model_run(model, inputs, outputs) != 0:
            sys.exit(f"rank {rank}: run: {lib.skiff_model_last_error().decode()}")
    got = []
    for i, name in enumerate(names):
        t = SkiffTensor()
        assert lib.skiff_model_variable(model, name.encode(), ctypes.byref(t)) == 0, name
        want = ref[f"varying_{i}"]
        data = ctypes.cast(t.data, ctypes.POINTER(ctypes.c_double))
        got.append(np.ctypeslib.as_array(data, shape=want.shape).copy())
    lib.skiff_model_destroy(model)
    check("libmodel.so in this process", got, [ref[f"varying_{i}"] for i in range(len(names))])


if what == "prepare":
    prepare()
else:
    train()
