"""W2, W3, W5, W7 and W8 (bench/README.md) in the peers, PyTorch and PaddlePaddle (eager),
with the fixed parameter values and inputs the skiff programs use (bench/workloads.cc), so
the losses of the first steps can be compared across frameworks.

  w2  MLP 784-512-512-10 training step, batch 64, Adam, softmax cross-entropy
  w3  CNN training step (conv3x3 1->32, relu, maxpool2, conv3x3 32->64, relu, maxpool2,
      fc 3136->10), batch 64, SGD with momentum 0.9
  w5  CTR training step: 26 ids per example looked up in a 1M x 16 table with sparse
      gradients, concatenated to 416 features, MLP 416-256-1, BCE with logits, batch 512
  w7  fp32 GEMM 1024 x 1024 x 1024
  w8  Fashion-MNIST: W3's network, one epoch from the IDX files (read with numpy, batched
      by the framework's own DataLoader), then test accuracy

Each peer runs in its own process with 2 threads; a peer whose package is missing is
skipped. Prints "RESULT <peer> <ms>" (per step; per product for w7; per epoch for w8),
"LOSS <peer> <first> <after>" (first step's loss, loss of step LOSS_STEPS), "CHECKSUM"
(w7: sum of squares of the product), "ACCURACY" (w8: median test accuracy) and, with --memory, "PEAK_RSS_MB <peer> <peak> <before model>".

    python bench/peers.py --workload w3 [--reps 7] [--peer torch ...] [--memory]
"""

import argparse
import gzip
import os
import statistics
import subprocess
import sys
import time

THREADS = 2
PEERS = ["torch", "paddle"]
WORKLOADS = ["w2", "w3", "w5", "w7", "w8"]
# Timed steps per repetition (one repetition = one epoch for w8).
STEPS = {"w2": 20, "w3": 5, "w5": 20, "w7": 5, "w8": 1}
LOSS_STEPS = 5  # the "after" loss is the loss computed by step LOSS_STEPS (1-based)
MEMORY_STEPS = 50
CTR_ROWS, CTR_DIM, CTR_FIELDS, CTR_BATCH = 1_000_000, 16, 26, 512
FASHION_DIR = "/usr/share/datasets/fashion-mnist"
FASHION_WARMUP_STEPS = 20  # w8: a short untimed run before the timed epochs


# ---- fixed values, computed exactly as bench/workloads.cc does ----------------------------

def fixed(shape, scale, phase, offset=0.0):
    """offset + scale * sin(0.61803398875 i + phase) over the flat index i, as float32."""
    import numpy as np

    n = int(np.prod(shape))
    v = offset + scale * np.sin(0.61803398875 * np.arange(n, dtype=np.float64) + phase)
    return v.astype(np.float32).reshape(shape)


def glorot(fan_in, fan_out):
    return (6.0 / (fan_in + fan_out)) ** 0.5


def mlp_params():
    """[(name, value)] for W2, weights stored [in, out] like skiff and Paddle."""
    widths = [784, 512, 512, 10]
    out = []
    for layer in range(3):
        fi, fo = widths[layer], widths[layer + 1]
        out.append((f"fc{layer}_w", fixed([fi, fo], glorot(fi, fo), 0.1 + layer)))
        out.append((f"fc{layer}_b", fixed([fo], 0.01, 0.5 + layer)))
    return out


def cnn_params():
    """W3's conv filters [out, in, 3, 3] and fc weight [3136, 10] (stored [in, out])."""
    return [
        ("conv1_w", fixed([32, 1, 3, 3], glorot(9, 288), 0.1)),
        ("conv1_b", fixed([32], 0.01, 0.5)),
        ("conv2_w", fixed([64, 32, 3, 3], glorot(288, 576), 1.1)),
        ("conv2_b", fixed([64], 0.01, 1.5)),
        ("fc_w", fixed([3136, 10], glorot(3136, 10), 2.1)),
        ("fc_b", fixed([10], 0.01, 2.5)),
    ]


def ctr_params():
    return [
        ("table", fixed([CTR_ROWS, CTR_DIM], 0.05, 0.3)),
        ("fc0_w", fixed([416, 256], glorot(416, 256), 1.1)),
        ("fc0_b", fixed([256], 0.01, 1.5)),
        ("fc1_w", fixed([256, 1], glorot(256, 1), 2.1)),
        ("fc1_b", fixed([1], 0.01, 2.5)),
    ]


def image_batch(shape):
    """Pixels in [0, 1] and labels (7 r + 3) mod 10, as int64 [batch]."""
    import numpy as np

    x = fixed(shape, 0.5, 0.1, offset=0.5)
    y = (np.arange(shape[0], dtype=np.int64) * 7 + 3) % 10
    return x, y


def ctr_batch(step):
    """Ids [512, 26] and click labels [512, 1] of step `step` (0-based)."""
    import numpy as np

    row = step * CTR_BATCH + np.arange(CTR_BATCH, dtype=np.int64)[:, None]
    field = np.arange(CTR_FIELDS, dtype=np.int64)[None, :]
    ids = (row * 2654435761 + field * 1000003 + 7) % CTR_ROWS
    label = ((row[:, 0] * 40503 + 11) % 3 == 0).astype(np.float32)[:, None]
    return ids, label


def gemm_operands():
    return fixed([1024, 1024], 0.5, 0.1), fixed([1024, 1024], 0.5, 1.1)


def read_idx(path):
    """An IDX file of unsigned bytes (gzip) as a numpy array."""
    import numpy as np

    with gzip.open(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def fashion(split):
    """Images float32 [N, 1, 28, 28] in [0, 1] and labels int64 [N]."""
    import numpy as np

    prefix = "train" if split == "train" else "t10k"
    x = read_idx(f"{FASHION_DIR}/{prefix}-images-idx3-ubyte.gz")
    y = read_idx(f"{FASHION_DIR}/{prefix}-labels-idx1-ubyte.gz")
    x = (x.astype(np.float32) / 255.0).reshape(-1, 1, 28, 28)
    return x, y.astype(np.int64)


# ---- timing and memory ---------------------------------------------------------------------

def time_training(step, workload, reps, memory, base_rss, out):
    """Fills `out` for a training `step(i)` (returns step i's loss): the losses of steps 1
    and LOSS_STEPS, then the peak RSS (memory) or the median ms per step."""
    counter = iter(range(10**9))
    losses = [step(next(counter)) for _ in range(LOSS_STEPS)]
    out["loss"] = (losses[0], losses[-1])
    if memory:
        for _ in range(MEMORY_STEPS - LOSS_STEPS):
            step(next(counter))
        out["rss"] = (rss_mb("VmHWM"), base_rss)
        return out
    n = STEPS[workload]
    out["ms"] = median_ms(lambda: [step(next(counter)) for _ in range(n)], reps) / n
    return out


def median_ms(fn, reps, warmup=2):
    """Median wall time of `reps` calls of fn after `warmup` calls."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def rss_mb(field):
    """VmHWM (peak) or VmRSS (now) of this process in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


# ---- PyTorch -------------------------------------------------------------------------------

def torch_model(workload, params):
    import torch
    from torch import nn

    p = dict(params) if params else {}

    def linear(fi, fo, w, b):
        layer = nn.Linear(fi, fo)
        if params:
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(p[w].T.copy()))
                layer.bias.copy_(torch.from_numpy(p[b]))
        return layer

    def conv(ci, co, w, b):
        layer = nn.Conv2d(ci, co, 3, padding=1)
        if params:
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(p[w]))
                layer.bias.copy_(torch.from_numpy(p[b]))
        return layer

    if workload == "w2":
        return nn.Sequential(linear(784, 512, "fc0_w", "fc0_b"), nn.ReLU(),
                             linear(512, 512, "fc1_w", "fc1_b"), nn.ReLU(),
                             linear(512, 10, "fc2_w", "fc2_b"))
    if workload in ("w3", "w8"):
        return nn.Sequential(conv(1, 32, "conv1_w", "conv1_b"), nn.ReLU(), nn.MaxPool2d(2),
                             conv(32, 64, "conv2_w", "conv2_b"), nn.ReLU(), nn.MaxPool2d(2),
                             nn.Flatten(), linear(3136, 10, "fc_w", "fc_b"))
    raise ValueError(workload)


def torch_glorot_init(model):
    """W8: the same initial distribution as skiff's (Glorot uniform, zero biases)."""
    import torch

    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, (torch.nn.Conv2d, torch.nn.Linear)):
                w = m.weight
                rf = w[0][0].numel() if w.dim() > 2 else 1
                bound = glorot(w.shape[1] * rf, w.shape[0] * rf)
                w.uniform_(-bound, bound)
                m.bias.zero_()


def run_torch(workload, reps, memory):
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(THREADS)
    torch.manual_seed(1)
    base_rss = rss_mb("VmRSS")
    out = {}
    if workload == "w7":
        a, b = (torch.from_numpy(v) for v in gemm_operands())
        res = {}

        def step():
            res["c"] = torch.matmul(a, b)
        out["ms"] = median_ms(lambda: [step() for _ in range(STEPS[workload])], reps) / STEPS[
            workload]
        out["checksum"] = float((res["c"].double() ** 2).sum())
        return out
    if workload == "w8":
        return torch_fashion(reps)

    if workload == "w5":
        class Ctr(torch.nn.Module):
            def __init__(self):
                super().__init__()
                p = dict(ctr_params())
                self.table = torch.nn.Embedding(CTR_ROWS, CTR_DIM, sparse=True)
                self.fc0 = torch.nn.Linear(416, 256)
                self.fc1 = torch.nn.Linear(256, 1)
                with torch.no_grad():
                    self.table.weight.copy_(torch.from_numpy(p["table"]))
                    for name in ("fc0", "fc1"):
                        getattr(self, name).weight.copy_(torch.from_numpy(p[name + "_w"].T.copy()))
                        getattr(self, name).bias.copy_(torch.from_numpy(p[name + "_b"]))

            def forward(self, ids):
                h = self.table(ids).reshape(ids.shape[0], CTR_FIELDS * CTR_DIM)
                return self.fc1(torch.relu(self.fc0(h)))

        model = Ctr()
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        batches = [tuple(torch.from_numpy(v) for v in ctr_batch(s)) for s in range(8)]

        def loss_of(i):
            ids, label = batches[i % len(batches)]
            return F.binary_cross_entropy_with_logits(model(ids), label)
    else:
        params = mlp_params() if workload == "w2" else cnn_params()
        model = torch_model(workload, params)
        if workload == "w2":
            opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
            xv, yv = image_batch([64, 784])
        else:
            opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
            xv, yv = image_batch([64, 1, 28, 28])
        x, y = torch.from_numpy(xv), torch.from_numpy(yv)

        def loss_of(i):
            return F.cross_entropy(model(x), y)

    def step(i):
        opt.zero_grad(set_to_none=True)
        loss = loss_of(i)
        loss.backward()
        opt.step()
        return float(loss)

    return time_training(step, workload, reps, memory, base_rss, out)


def torch_fashion(reps):
    import numpy as np
    import torch
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset

    test_x, test_y = (torch.from_numpy(v) for v in fashion("test"))
    result = {}

    def epoch(max_steps=None):
        train_x, train_y = fashion("train")
        loader = DataLoader(TensorDataset(torch.from_numpy(train_x), torch.from_numpy(train_y)),
                            batch_size=64, shuffle=True, drop_last=True)
        model = torch_model("w8", None)
        torch_glorot_init(model)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        model.train()
        for step, (xb, yb) in enumerate(loader):
            if step == max_steps:
                return
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            pred = torch.cat([model(test_x[i:i + 1000]).argmax(1)
                              for i in range(0, len(test_x), 1000)])
        result["accuracy"] = float((pred == test_y).double().mean())

    epoch(max_steps=FASHION_WARMUP_STEPS)
    times, accs = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        epoch()
        times.append((time.perf_counter() - t0) * 1e3)
        accs.append(result["accuracy"])
    return {"ms": statistics.median(times), "accuracy": float(np.median(accs))}


# ---- PaddlePaddle --------------------------------------------------------------------------

def paddle_model(workload, params, paddle=None):
    """The network in `paddle` (default PaddlePaddle; bench/py runs skiff through it)."""
    if paddle is None:
        import paddle
    nn = paddle.nn

    p = dict(params) if params else {}

    def setp(layer, w, b):
        if params:
            layer.weight.set_value(p[w])
            layer.bias.set_value(p[b])
        return layer

    if workload == "w2":
        return nn.Sequential(setp(nn.Linear(784, 512), "fc0_w", "fc0_b"), nn.ReLU(),
                             setp(nn.Linear(512, 512), "fc1_w", "fc1_b"), nn.ReLU(),
                             setp(nn.Linear(512, 10), "fc2_w", "fc2_b"))
    if workload in ("w3", "w8"):
        init = None
        if not params:  # W8: Glorot uniform like skiff, zero biases
            init = paddle.ParamAttr(initializer=nn.initializer.XavierUniform())
        zero = paddle.ParamAttr(initializer=nn.initializer.Constant(0.0)) if init else None
        return nn.Sequential(
            setp(nn.Conv2D(1, 32, 3, padding=1, weight_attr=init, bias_attr=zero),
                 "conv1_w", "conv1_b"),
            nn.ReLU(), nn.MaxPool2D(2),
            setp(nn.Conv2D(32, 64, 3, padding=1, weight_attr=init, bias_attr=zero),
                 "conv2_w", "conv2_b"),
            nn.ReLU(), nn.MaxPool2D(2), nn.Flatten(),
            setp(nn.Linear(3136, 10, weight_attr=init, bias_attr=zero), "fc_w", "fc_b"))
    raise ValueError(workload)


IMAGE_SHAPES = {"w2": [64, 784], "w3": [64, 1, 28, 28]}


def paddle_optimizer(workload, paddle, parameters=None):
    """W2's Adam or W3's momentum SGD in `paddle` (parameters None: a static program's)."""
    if workload == "w2":
        return paddle.optimizer.Adam(learning_rate=1e-3, beta1=0.9, beta2=0.999, epsilon=1e-8,
                                     parameters=parameters)
    return paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9, parameters=parameters)


def run_paddle(workload, reps, memory, paddle=None):
    """Paddle's eager training; with `paddle` another module with Paddle's API runs the same
    code (bench/py/w2_w3.py: skiff; threads from OMP_NUM_THREADS)."""
    if paddle is None:
        import paddle
        if hasattr(paddle.base.core, "set_num_threads"):
            paddle.base.core.set_num_threads(THREADS)
    F = paddle.nn.functional
    paddle.set_device("cpu")
    paddle.seed(1)
    base_rss = rss_mb("VmRSS")
    out = {}
    if workload == "w7":
        a, b = (paddle.to_tensor(v) for v in gemm_operands())
        res = {}

        def step():
            res["c"] = paddle.matmul(a, b)
        out["ms"] = median_ms(lambda: [step() for _ in range(STEPS[workload])], reps) / STEPS[
            workload]
        out["checksum"] = float((res["c"].numpy().astype("float64") ** 2).sum())
        return out
    if workload == "w8":
        return paddle_fashion(reps)

    if workload == "w5":
        p = dict(ctr_params())
        table = paddle.nn.Embedding(CTR_ROWS, CTR_DIM, sparse=True)
        table.weight.set_value(p["table"])
        fc0, fc1 = paddle.nn.Linear(416, 256), paddle.nn.Linear(256, 1)
        for name, layer in (("fc0", fc0), ("fc1", fc1)):
            layer.weight.set_value(p[name + "_w"])
            layer.bias.set_value(p[name + "_b"])
        params = table.parameters() + fc0.parameters() + fc1.parameters()
        opt = paddle.optimizer.SGD(learning_rate=0.01, parameters=params)
        batches = [tuple(paddle.to_tensor(v) for v in ctr_batch(s)) for s in range(8)]

        def loss_of(i):
            ids, label = batches[i % len(batches)]
            h = paddle.reshape(table(ids), [ids.shape[0], CTR_FIELDS * CTR_DIM])
            logit = fc1(F.relu(fc0(h)))
            return F.binary_cross_entropy_with_logits(logit, label)
    else:
        params = mlp_params() if workload == "w2" else cnn_params()
        model = paddle_model(workload, params, paddle)
        opt = paddle_optimizer(workload, paddle, model.parameters())
        x, y = (paddle.to_tensor(v) for v in image_batch(IMAGE_SHAPES[workload]))

        def loss_of(i):
            return F.cross_entropy(model(x), y)

    def step(i):
        loss = loss_of(i)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)

    return time_training(step, workload, reps, memory, base_rss, out)


def paddle_fashion(reps):
    import numpy as np
    import paddle
    import paddle.nn.functional as F
    from paddle.io import DataLoader, TensorDataset

    test_x, test_y = (paddle.to_tensor(v) for v in fashion("test"))
    result = {}

    def epoch(max_steps=None):
        train_x, train_y = fashion("train")
        dataset = TensorDataset([paddle.to_tensor(train_x), paddle.to_tensor(train_y)])
        loader = DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True, num_workers=0)
        model = paddle_model("w8", None)
        opt = paddle.optimizer.Momentum(learning_rate=0.01, momentum=0.9,
                                        parameters=model.parameters())
        model.train()
        for step, (xb, yb) in enumerate(loader):
            if step == max_steps:
                return
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            opt.clear_grad()
        model.eval()
        with paddle.no_grad():
            pred = paddle.concat([model(test_x[i:i + 1000]).argmax(1)
                                  for i in range(0, test_x.shape[0], 1000)])
        result["accuracy"] = float((pred == test_y).astype("float64").mean())

    epoch(max_steps=FASHION_WARMUP_STEPS)
    times, accs = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        epoch()
        times.append((time.perf_counter() - t0) * 1e3)
        accs.append(result["accuracy"])
    return {"ms": statistics.median(times), "accuracy": float(np.median(accs))}


# ---- driver --------------------------------------------------------------------------------

def run_one(workload, peer, reps, memory):
    """Runs one peer in this process; prints its result lines."""
    package = "torch" if peer == "torch" else "paddle"
    try:
        __import__(package)
    except ImportError:
        print(f"SKIP {peer} (package '{package}' is not installed)")
        return
    out = (run_torch if peer == "torch" else run_paddle)(workload, reps, memory)
    if "ms" in out:
        print(f"RESULT {peer} {out['ms']:.4f}")
    if "loss" in out:
        print(f"LOSS {peer} {out['loss'][0]:.6f} {out['loss'][1]:.6f}")
    if "checksum" in out:
        print(f"CHECKSUM {peer} {out['checksum']:.6f}")
    if "accuracy" in out:
        print(f"ACCURACY {peer} {out['accuracy']:.4f}")
    if "rss" in out:
        print(f"PEAK_RSS_MB {peer} {out['rss'][0]:.1f} {out['rss'][1]:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", required=True, choices=WORKLOADS)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--peer", action="append", choices=PEERS,
                    help="run only these peers (default: all)")
    ap.add_argument("--memory", action="store_true",
                    help=f"w3 only: train {MEMORY_STEPS} steps and report the peak RSS")
    ap.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    reps = max(5, args.reps)
    peers = args.peer or PEERS
    if args.memory and args.workload != "w3":
        sys.exit("--memory is measured on w3")

    if args.in_process:
        for peer in peers:
            run_one(args.workload, peer, reps, args.memory)
        return

    env = dict(os.environ, OMP_NUM_THREADS=str(THREADS), MKL_NUM_THREADS=str(THREADS),
               CPU_NUM="1")
    what = "peak RSS" if args.memory else f"{reps} reps, median"
    print(f"{args.workload} peers, {THREADS} threads, {what}")
    for peer in peers:
        cmd = [sys.executable, os.path.abspath(__file__), "--in-process", "--peer", peer,
               "--workload", args.workload, "--reps", str(reps)]
        if args.memory:
            cmd.append("--memory")
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            err = proc.stderr.strip().splitlines()
            print(f"FAILED {peer}: {err[-1] if err else 'exit code ' + str(proc.returncode)}")
            continue
        for ln in proc.stdout.splitlines():
            if ln.startswith(("RESULT", "LOSS", "CHECKSUM", "ACCURACY", "PEAK_RSS_MB", "SKIP")):
                print(ln)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
