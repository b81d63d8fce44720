"""int8 inference at batch 1 and batch 64 of two networks with fixed parameters: W6's MLP
784-512-512-10 (W2's) and W3's CNN (two conv-relu-pool blocks and a Linear). skiff float32
and skiff int8 (PTQ with abs-max activations and per-channel weights, then jit.save, whose
int8 pass computes Linear and Conv2D layers with quantized_matmul / quantized_conv2d and
hands int8 from layer to layer), beside PyTorch float32 and int8 (the MLP:
torch.ao.quantization's quantize_dynamic; the CNN: static post-training quantization,
bench/int8_peers.py) and, for the CNN, Paddle Inference float32 and int8
(bench/int8_peers.py). Each implementation runs in a process of its own with 2 threads,
rounds alternating; prints the median ms per call, the ratios to skiff int8, and the
largest difference of each int8 model's logits from its float model's. `--layers` also
times each layer's product alone (float32 vs int8 op).

    PYTHONPATH=build/python OPENBLAS_NUM_THREADS=1 .venv/bin/python bench/int8_infer.py \
        [--model mlp,cnn] [--rounds 3] [--reps 7] [--layers]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

IMPLS = {"mlp": ["skiff_f32", "skiff_int8", "torch_f32", "torch_int8"],
         "cnn": ["skiff_f32", "skiff_int8", "torch_f32", "torch_int8", "paddle_f32",
                 "paddle_int8"]}
BATCHES = [1, 64]


def calls_for(model, batch):
    if model == "mlp":
        return 2000 if batch == 1 else 200
    return 200 if batch == 1 else 10


def inputs(model, batch):
    from peers import image_batch
    return image_batch([batch, 784] if model == "mlp" else [batch, 1, 28, 28])[0]


def params(model):
    from peers import cnn_params, mlp_params
    return dict(mlp_params() if model == "mlp" else cnn_params())


def skiff_network(model):
    """The float network with the benchmark's parameters, and its input spec."""
    import skiff.nn as nn
    from skiff.static import InputSpec
    p = params(model)
    if model == "mlp":
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                            nn.Linear(512, 10))
        for i, layer in enumerate([net[0], net[2], net[4]]):
            layer.weight.set_value(p[f"fc{i}_w"])
            layer.bias.set_value(p[f"fc{i}_b"])
        return net, [InputSpec([None, 784], "float32", "x")]
    sys.path.insert(0, os.path.join(HERE, "..", "examples"))
    from fashion_mnist import ConvNet
    net = ConvNet()
    for name in ("conv1", "conv2", "fc"):
        getattr(net, name).weight.set_value(p[f"{name}_w"])
        getattr(net, name).bias.set_value(p[f"{name}_b"])
    return net, [InputSpec([None, 1, 28, 28], "float32", "image")]


def skiff_models(model, folder):
    """The float model and its int8 form, saved with jit.save and loaded back."""
    import skiff
    from skiff.quantization import PTQ, QuantConfig
    from skiff.quantization.observers import AbsmaxObserver, PerChannelAbsmaxObserver

    net, spec = skiff_network(model)
    net.eval()
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(net)
    with skiff.no_grad():
        observed(skiff.to_tensor(inputs(model, 64)))
    int8 = ptq.convert(observed)
    skiff.jit.save(net, os.path.join(folder, "f32"), input_spec=spec)
    skiff.jit.save(int8, os.path.join(folder, "int8"), input_spec=spec)
    return skiff.jit.load(os.path.join(folder, "f32")), skiff.jit.load(os.path.join(folder, "int8"))


def torch_mlp():
    import torch
    torch.set_num_threads(2)
    p = params("mlp")
    layers = [torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
              torch.nn.ReLU(), torch.nn.Linear(512, 10)]
    with torch.no_grad():
        for i, layer in enumerate([layers[0], layers[2], layers[4]]):
            layer.weight.copy_(torch.tensor(p[f"fc{i}_w"]).T)
            layer.bias.copy_(torch.tensor(p[f"fc{i}_b"]))
    net = torch.nn.Sequential(*layers).eval()
    int8 = torch.ao.quantization.quantize_dynamic(net, {torch.nn.Linear}, dtype=torch.qint8)
    return net, int8


def implementation(impl, model):
    """(callable on a numpy batch giving numpy logits, or None where it does not run)."""
    kind, precision = impl.split("_")
    if kind == "skiff":
        import skiff
        f32, int8 = skiff_models(model, tempfile.mkdtemp())
        net = int8 if precision == "int8" else f32

        def run(x):
            with skiff.no_grad():
                return net(skiff.to_tensor(x)).numpy()
        return run
    if kind == "torch":
        import torch
        if model == "mlp":
            f32, int8 = torch_mlp()
        else:
            from int8_peers import torch_cnn
            f32, int8 = torch_cnn(params(model), inputs(model, 64))
        net = int8 if precision == "int8" else f32

        def run(x):
            with torch.no_grad():
                return net(torch.from_numpy(x)).numpy()
        return run
    from int8_peers import paddle_cnn
    f32, int8 = paddle_cnn(params(model), inputs(model, 64), tempfile.mkdtemp())
    return int8 if precision == "int8" else f32


def run_impl(impl, model, reps):
    """{batch: [ms per call, logits]} of one implementation, in this process; {} where it
    does not run."""
    from peers import median_ms
    run = implementation(impl, model)
    if run is None:
        return {}
    out = {}
    for batch in BATCHES:
        x = inputs(model, batch)
        logits = run(x)
        n = calls_for(model, batch)

        def call():
            for _ in range(n):
                run(x)
        out[batch] = [median_ms(call, reps) / n, logits.tolist()]
    return out


def run_layers(reps):
    """ms of each layer's product alone at batch 64 (MLP layers: matmul vs quantized_matmul;
    CNN layers: conv2d vs quantized_conv2d), the int8 inputs non-negative as these models'
    are (pixels in [0, 1], then relu)."""
    import numpy as np

    import skiff
    from peers import median_ms
    from skiff.framework.core import eager_op
    rng = np.random.default_rng(0)

    def ints(shape, low=-128):
        return skiff.to_tensor(rng.integers(low, 128, shape, dtype=np.int8))

    def floats(shape):
        return skiff.to_tensor(rng.standard_normal(shape).astype(np.float32))

    xs = skiff.to_tensor(np.array([0.01], np.float32))
    rows = []
    for k, n in [(784, 512), (512, 512), (3136, 10)]:
        f32, q = eager_op("matmul"), eager_op("quantized_matmul")
        x, w, xq, wq = floats([64, k]), floats([k, n]), ints([64, k], 0), ints([k, n])
        ws = skiff.to_tensor(np.full([n], 0.01, np.float32))
        with skiff.no_grad():
            t32 = median_ms(lambda: [f32(x, w) for _ in range(50)], reps) / 50
            t8 = median_ms(lambda: [q(xq, wq, xs, ws, None, None) for _ in range(50)], reps) / 50
        rows.append((f"matmul {k}x{n}", t32, t8))
    attrs = {"paddings": [1, 1]}
    for c, m, hw in [(1, 32, 28), (32, 64, 14)]:
        f32, q = eager_op("conv2d", attrs), eager_op("quantized_conv2d", attrs)
        x, w = floats([64, c, hw, hw]), floats([m, c, 3, 3])
        xq, wq = ints([64, c, hw, hw], 0), ints([m, c, 3, 3])
        ws = skiff.to_tensor(np.full([m], 0.01, np.float32))
        with skiff.no_grad():
            t32 = median_ms(lambda: [f32(x, w, None) for _ in range(10)], reps) / 10
            t8 = median_ms(lambda: [q(xq, wq, xs, ws, None, None) for _ in range(10)], reps) / 10
        rows.append((f"conv {c}->{m} {hw}x{hw}", t32, t8))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mlp,cnn", help="mlp, cnn or both (comma-separated)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--layers", action="store_true")
    p.add_argument("--impl", help=argparse.SUPPRESS)  # (a child process)
    args = p.parse_args(argv)
    models = args.model.split(",")
    if args.impl:
        print(json.dumps(run_impl(args.impl, models[0], args.reps)))
        return 0
    import numpy as np
    env = dict(os.environ, OMP_NUM_THREADS="2")
    for model in models:
        impls = IMPLS[model]
        times = {(i, b): [] for i in impls for b in BATCHES}
        logits = {}
        for _ in range(args.rounds):
            for impl in impls:
                out = subprocess.run([sys.executable, __file__, "--impl", impl, "--model", model,
                                      "--reps", str(args.reps)], env=env, capture_output=True,
                                     text=True)
                if out.returncode:
                    print(f"{model} {impl} failed:\n{out.stderr[-3000:]}")
                    return 1
                result = json.loads(out.stdout.strip().splitlines()[-1])
                for batch in BATCHES:
                    if str(batch) in result:
                        times[(impl, batch)].append(result[str(batch)][0])
                        logits[(impl, batch)] = result[str(batch)][1]
        for batch in BATCHES:
            base = statistics.median(times[("skiff_int8", batch)])
            print(f"{model} batch {batch} (median of {args.rounds} rounds, ms per call; ratio = "
                  f"that / skiff int8):")
            for impl in impls:
                if not times[(impl, batch)]:
                    print(f"  {impl:11s} (does not run here: see bench/int8_peers.py)")
                    continue
                ms = statistics.median(times[(impl, batch)])
                print(f"  {impl:11s} {ms:8.4f}   {ms / base:5.2f}")
            for kind in sorted({i.split("_")[0] for i in impls}):
                if (f"{kind}_int8", batch) in logits:
                    diff = np.abs(np.array(logits[(f"{kind}_int8", batch)]) -
                                  np.array(logits[(f"{kind}_f32", batch)])).max()
                    print(f"  {kind} int8 logits vs its float32: max |difference| {diff:.4f}")
    if args.layers:
        print("per layer at batch 64 (ms): float32 op, int8 op, speed-up")
        for name, t32, t8 in run_layers(args.reps):
            print(f"  {name:20s} {t32:.4f} {t8:.4f} {t32 / t8:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
