"""W6 (MLP inference latency at batch 1, W2's network 784-512-512-10) in the peers:
PyTorch eager and TorchScript (torch.jit.trace, frozen), PaddlePaddle eager and Paddle's
inference API (paddle.jit.save, then paddle.inference.create_predictor), each in its own
process with 2 threads and W2's fixed parameter values (bench/peers.py). Prints
"RESULT <name> <ms per call>" and "CHECKSUM" lines like bench/w6_infer.

    .venv/bin/python bench/w6_peers.py [--reps 7] [--peer torch_eager ...]
"""

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

CALLS = 2000
PEERS = ["torch_eager", "torchscript", "paddle_eager", "paddle_inference"]


def x_batch():
    from peers import image_batch
    return image_batch([1, 784])[0]


def per_call_ms(fn, reps):
    from peers import median_ms

    def many():
        for _ in range(CALLS):
            fn()
    return median_ms(many, reps) / CALLS


def run_torch(peer, reps):
    import torch
    from peers import mlp_params, torch_model
    torch.set_num_threads(2)
    model = torch_model("w2", mlp_params()).eval()
    x = torch.from_numpy(x_batch())
    with torch.no_grad():
        if peer == "torchscript":
            model = torch.jit.freeze(torch.jit.trace(model, x))
        ms = per_call_ms(lambda: model(x), reps)
        out = model(x).numpy()
    return ms, float(out.sum())


def run_paddle(peer, reps):
    import numpy as np
    import paddle
    from peers import mlp_params, paddle_model
    paddle.set_device("cpu")
    paddle.set_num_threads(2) if hasattr(paddle, "set_num_threads") else None
    model = paddle_model("w2", mlp_params())
    model.eval()
    x = x_batch()
    if peer == "paddle_eager":
        xt = paddle.to_tensor(x)
        with paddle.no_grad():
            ms = per_call_ms(lambda: model(xt), reps)
            out = model(xt).numpy()
        return ms, float(out.sum())
    from paddle import inference
    prefix = os.path.join(tempfile.mkdtemp(prefix="w6_paddle_"), "mlp")
    paddle.jit.save(model, prefix,
                    input_spec=[paddle.static.InputSpec([None, 784], "float32", "x")])
    model_file = prefix + ".json" if os.path.exists(prefix + ".json") else prefix + ".pdmodel"
    config = inference.Config(model_file, prefix + ".pdiparams")
    config.disable_gpu()
    config.set_cpu_math_library_num_threads(2)
    config.disable_glog_info()
    predictor = inference.create_predictor(config)
    handle_in = predictor.get_input_handle(predictor.get_input_names()[0])
    handle_out = predictor.get_output_handle(predictor.get_output_names()[0])

    def call():
        handle_in.copy_from_cpu(x)
        predictor.run()
        return handle_out.copy_to_cpu()
    ms = per_call_ms(call, reps)
    return ms, float(np.asarray(call()).sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--peer", action="append", choices=PEERS)
    ap.add_argument("--child", choices=PEERS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        run = run_torch if args.child.startswith("torch") else run_paddle
        ms, checksum = run(args.child, args.reps)
        print(f"RESULT {args.child} {ms:.5f}")
        print(f"CHECKSUM {checksum:.6f}")
        return
    for peer in args.peer or PEERS:
        env = dict(os.environ, OMP_NUM_THREADS="2", MKL_NUM_THREADS="2")
        proc = subprocess.run([sys.executable, __file__, "--child", peer, "--reps",
                               str(args.reps)], capture_output=True, text=True, env=env)
        lines = [l for l in proc.stdout.splitlines() if l.startswith(("RESULT", "CHECKSUM"))]
        if proc.returncode != 0 or not lines:
            print(f"# {peer} skipped: {proc.stderr.strip().splitlines()[-1:]}")
            continue
        print("\n".join(lines), flush=True)


if __name__ == "__main__":
    main()
