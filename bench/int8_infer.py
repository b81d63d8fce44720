"""int8 inference of W6's network (the MLP 784-512-512-10 with W2's fixed parameters) at
batch 1 and batch 64: skiff float32 and skiff int8 (PTQ with abs-max activations and
per-channel weights, then jit.save, which computes the Linear layers with
quantized_matmul), beside PyTorch float32 and PyTorch int8 (torch.ao.quantization's
quantize_dynamic of the Linear layers, its x86 engine). Each implementation runs in a
process of its own with 2 threads, rounds alternating; prints the median ms per call, the
ratios to skiff int8, and the largest difference of each int8 model's logits from its
float model's. `--layers` also times each layer's product alone (skiff's matmul vs
quantized_matmul).

    .venv/bin/python bench/int8_infer.py [--rounds 3] [--reps 7] [--layers]
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

IMPLS = ["skiff_f32", "skiff_int8", "torch_f32", "torch_int8"]
BATCHES = [1, 64]


def calls_for(batch):
    return 2000 if batch == 1 else 200


def inputs(batch):
    from peers import image_batch
    return image_batch([batch, 784])[0]


def skiff_models(folder):
    """The float model and its int8 form, saved with jit.save and loaded back."""
    import skiff
    import skiff.nn as nn
    from peers import mlp_params
    from skiff.quantization import PTQ, QuantConfig
    from skiff.quantization.observers import AbsmaxObserver, PerChannelAbsmaxObserver
    from skiff.static import InputSpec

    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    params = dict(mlp_params())
    for i, layer in enumerate([model[0], model[2], model[4]]):
        layer.weight.set_value(params[f"fc{i}_w"])
        layer.bias.set_value(params[f"fc{i}_b"])
    ptq = PTQ(QuantConfig(activation=AbsmaxObserver(), weight=PerChannelAbsmaxObserver()))
    observed = ptq.quantize(model)
    with skiff.no_grad():
        observed(skiff.to_tensor(inputs(64)))
    int8 = ptq.convert(observed)
    spec = [InputSpec([None, 784], "float32", "x")]
    skiff.jit.save(model, os.path.join(folder, "f32"), input_spec=spec)
    skiff.jit.save(int8, os.path.join(folder, "int8"), input_spec=spec)
    return skiff.jit.load(os.path.join(folder, "f32")), skiff.jit.load(os.path.join(folder, "int8"))


def torch_models():
    import torch
    from peers import mlp_params
    torch.set_num_threads(2)
    params = dict(mlp_params())
    layers = [torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
              torch.nn.ReLU(), torch.nn.Linear(512, 10)]
    with torch.no_grad():
        for i, layer in enumerate([layers[0], layers[2], layers[4]]):
            layer.weight.copy_(torch.tensor(params[f"fc{i}_w"]).T)
            layer.bias.copy_(torch.tensor(params[f"fc{i}_b"]))
    model = torch.nn.Sequential(*layers).eval()
    int8 = torch.ao.quantization.quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
    return model, int8


def run_impl(impl, reps):
    """{batch: [ms per call, logits]} of one implementation, in this process."""
    from peers import median_ms
    if impl.startswith("skiff"):
        import skiff
        f32, int8 = skiff_models(tempfile.mkdtemp())
        to_input, no_grad = skiff.to_tensor, skiff.no_grad
    else:
        import torch
        f32, int8 = torch_models()
        to_input, no_grad = torch.tensor, torch.no_grad
    model = int8 if impl.endswith("int8") else f32
    out = {}
    for batch in BATCHES:
        x = to_input(inputs(batch))
        with no_grad():
            logits = model(x).numpy()

            def call():
                for _ in range(calls_for(batch)):
                    model(x)
            out[batch] = [median_ms(call, reps) / calls_for(batch), logits.tolist()]
    return out


def run_layers(reps):
    """ms of each layer's product alone at batch 64: skiff matmul f32 vs quantized_matmul."""
    import numpy as np

    import skiff
    from peers import median_ms
    from skiff.framework.core import eager_op
    rows = []
    for k, n in [(784, 512), (512, 512), (512, 10)]:
        rng = np.random.default_rng(0)
        x = skiff.to_tensor(rng.standard_normal([64, k]).astype(np.float32))
        w = skiff.to_tensor(rng.standard_normal([k, n]).astype(np.float32))
        xq = skiff.to_tensor(rng.integers(-128, 128, [64, k], dtype=np.int8))
        wq = skiff.to_tensor(rng.integers(-128, 128, [k, n], dtype=np.int8))
        xs = skiff.to_tensor(np.array([0.01], np.float32))
        ws = skiff.to_tensor(np.full([n], 0.01, np.float32))
        f32, q = eager_op("matmul"), eager_op("quantized_matmul")
        with skiff.no_grad():
            t32 = median_ms(lambda: [f32(x, w) for _ in range(200)], reps) / 200
            t8 = median_ms(lambda: [q(xq, wq, xs, ws, None) for _ in range(200)], reps) / 200
        rows.append((f"{k}x{n}", t32, t8))
    return rows


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--reps", type=int, default=7)
    p.add_argument("--layers", action="store_true")
    p.add_argument("--impl", help=argparse.SUPPRESS)  # (a child process)
    args = p.parse_args(argv)
    if args.impl:
        print(json.dumps(run_impl(args.impl, args.reps)))
        return 0
    env = dict(os.environ, OMP_NUM_THREADS="2")
    times = {(i, b): [] for i in IMPLS for b in BATCHES}
    logits = {}
    for _ in range(args.rounds):
        for impl in IMPLS:
            out = subprocess.run([sys.executable, __file__, "--impl", impl, "--reps",
                                  str(args.reps)], env=env, capture_output=True, text=True)
            if out.returncode:
                print(f"{impl} failed:\n{out.stderr[-3000:]}")
                return 1
            result = json.loads(out.stdout.strip().splitlines()[-1])
            for batch in BATCHES:
                times[(impl, batch)].append(result[str(batch)][0])
                logits[(impl, batch)] = result[str(batch)][1]
    import numpy as np
    for batch in BATCHES:
        base = statistics.median(times[("skiff_int8", batch)])
        print(f"batch {batch} (median of {args.rounds} rounds, ms per call; ratio = that / "
              f"skiff int8):")
        for impl in IMPLS:
            ms = statistics.median(times[(impl, batch)])
            print(f"  {impl:11s} {ms:8.4f}   {ms / base:5.2f}")
        for kind in ("skiff", "torch"):
            diff = np.abs(np.array(logits[(f"{kind}_int8", batch)]) -
                          np.array(logits[(f"{kind}_f32", batch)])).max()
            print(f"  {kind} int8 logits vs its float32: max |difference| {diff:.4f}")
    if args.layers:
        print("per layer at batch 64 (ms): matmul f32, quantized_matmul int8, speed-up")
        for name, t32, t8 in run_layers(args.reps):
            print(f"  {name:9s} {t32:.4f} {t8:.4f} {t32 / t8:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
