"""W4 (LSTM language model training step) in the peers: ids [35, 20] -> embedding 10k x 200 ->
2-layer LSTM (hidden 200, zero initial state) -> linear 200 -> 10k -> softmax cross-entropy,
mean over the 700 positions; backward, gradient clipping to global norm 0.25, SGD (lr 1).

Peers: PyTorch (nn.Embedding + nn.LSTM + nn.Linear, clip_grad_norm_) and PaddlePaddle
(paddle.nn.Embedding + paddle.nn.LSTM + paddle.nn.Linear, ClipGradByGlobalNorm), eager,
2 threads, each in its own process, with the parameter values and ids bench/w4_lstm.cc
uses (values() below), so that the losses agree across frameworks. The peers' LSTMs carry
two biases (b_ih, b_hh) whose sum is skiff's one bias: b_hh stays frozen at zero, so that
all three train the same model (two trained copies would move the sum twice as fast). A peer
whose package is missing is skipped. Prints "RESULT <peer> <ms per step>" and
"LOSS <peer> <loss of the first step> <loss after LOSS_STEPS steps>".

    python bench/w4_peers.py [--reps 7] [--threads 2] [--peer torch ...]
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

THREADS = 2  # default; --threads N for another count
VOCAB, EMBED, HIDDEN, LAYERS, STEPS, BATCH = 10000, 200, 200, 2, 35, 20
CLIP, LR = 0.25, 1.0
LOSS_STEPS = 3
PEERS = ["torch", "paddle"]


def values():
    """Parameters and data as numpy arrays, in skiff's layouts (weights [in, out], LSTM
    weights [in, 4 * hidden] with gate blocks i, f, g, o and one bias of 4 * hidden):
    w[r][c] = scale * sin(a r + b c + phase), the same formulas as bench/w4_lstm.cc."""
    import numpy as np

    def grid(rows, cols, scale, a, b, phase):
        r = np.arange(rows, dtype=np.float64)[:, None]
        c = np.arange(cols, dtype=np.float64)[None, :]
        return (scale * np.sin(a * r + b * c + phase)).astype(np.float32)

    v = {"embedding": grid(VOCAB, EMBED, 0.1, 0.37, 0.11, 0.05)}
    for layer in range(LAYERS):
        v[f"w_ih{layer}"] = grid(EMBED, 4 * HIDDEN, 0.07, 0.71, 1.31, 0.2 * layer + 0.1)
        v[f"w_hh{layer}"] = grid(HIDDEN, 4 * HIDDEN, 0.07, 1.17, 0.53, 0.2 * layer + 0.3)
        v[f"bias{layer}"] = grid(1, 4 * HIDDEN, 0.05, 0.0, 0.29, 0.2 * layer)[0]
    v["w_out"] = grid(HIDDEN, VOCAB, 0.07, 0.43, 0.97, 0.4)
    v["b_out"] = grid(1, VOCAB, 0.01, 0.0, 0.13, 0.0)[0]
    t = np.arange(STEPS + 1)[:, None]
    b = np.arange(BATCH)[None, :]
    stream = (t * 131 + b * 977 + 7) % VOCAB
    v["ids"] = stream[:-1].astype(np.int64)
    v["labels"] = stream[1:].astype(np.int64)
    return v


def median_ms(fn, reps):
    """Median wall time of `reps` calls after two warm-up calls."""
    fn()
    fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def run_torch(reps, threads):
    import torch
    from torch import nn

    torch.set_num_threads(threads)
    v = values()
    emb = nn.Embedding(VOCAB, EMBED)
    lstm = nn.LSTM(EMBED, HIDDEN, LAYERS)
    fc = nn.Linear(HIDDEN, VOCAB)
    with torch.no_grad():
        emb.weight.copy_(torch.from_numpy(v["embedding"]))
        for layer in range(LAYERS):
            getattr(lstm, f"weight_ih_l{layer}").copy_(torch.from_numpy(v[f"w_ih{layer}"]).t())
            getattr(lstm, f"weight_hh_l{layer}").copy_(torch.from_numpy(v[f"w_hh{layer}"]).t())
            getattr(lstm, f"bias_ih_l{layer}").copy_(torch.from_numpy(v[f"bias{layer}"]))
            getattr(lstm, f"bias_hh_l{layer}").zero_()
            getattr(lstm, f"bias_hh_l{layer}").requires_grad_(False)
        fc.weight.copy_(torch.from_numpy(v["w_out"]).t())
        fc.bias.copy_(torch.from_numpy(v["b_out"]))
    params = [p for m in (emb, lstm, fc) for p in m.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=LR)
    ids = torch.from_numpy(v["ids"])
    labels = torch.from_numpy(v["labels"]).reshape(-1)

    def step():
        opt.zero_grad()
        out, _ = lstm(emb(ids))
        loss = nn.functional.cross_entropy(fc(out.reshape(-1, HIDDEN)), labels)
        loss.backward()
        nn.utils.clip_grad_norm_(params, CLIP)
        opt.step()
        return float(loss)

    losses = [step() for _ in range(LOSS_STEPS + 1)]
    return median_ms(step, reps), losses[0], losses[LOSS_STEPS]


def paddle_language_model(paddle, v):
    """Embedding, LSTM and Linear built with `paddle` (PaddlePaddle, or skiff with Paddle's API:
    bench/py/w4.py) holding the values v, and SGD with global-norm clipping over every
    parameter but the frozen b_hh."""
    import numpy as np

    emb = paddle.nn.Embedding(VOCAB, EMBED)
    lstm = paddle.nn.LSTM(EMBED, HIDDEN, LAYERS, time_major=True)
    fc = paddle.nn.Linear(HIDDEN, VOCAB)
    emb.weight.set_value(v["embedding"])
    named = dict(lstm.named_parameters())
    for layer in range(LAYERS):
        named[f"weight_ih_l{layer}"].set_value(np.ascontiguousarray(v[f"w_ih{layer}"].T))
        named[f"weight_hh_l{layer}"].set_value(np.ascontiguousarray(v[f"w_hh{layer}"].T))
        named[f"bias_ih_l{layer}"].set_value(v[f"bias{layer}"])
        named[f"bias_hh_l{layer}"].set_value(np.zeros(4 * HIDDEN, np.float32))
    fc.weight.set_value(v["w_out"])
    fc.bias.set_value(v["b_out"])
    # The fused rnn op wants every weight's gradient: b_hh gets one but is left out of
    # the optimizer (and so of the clipping).
    frozen = {id(named[f"bias_hh_l{layer}"]) for layer in range(LAYERS)}
    params = [p for p in emb.parameters() + lstm.parameters() + fc.parameters()
              if id(p) not in frozen]
    opt = paddle.optimizer.SGD(learning_rate=LR, parameters=params,
                               grad_clip=paddle.nn.ClipGradByGlobalNorm(CLIP))
    return emb, lstm, fc, opt


def language_model_loss(paddle, emb, lstm, fc, ids, labels):
    """Mean softmax cross-entropy of the next-token logits (Paddle's API)."""
    out, _ = lstm(emb(ids))
    logits = fc(paddle.reshape(out, [-1, HIDDEN]))
    return paddle.nn.functional.cross_entropy(logits, labels)


def run_paddle(reps, threads, paddle=None, convert=None):
    """Paddle's eager training step. With `paddle` another module with Paddle's API runs the
    same code (threads from OMP_NUM_THREADS); `convert(emb, lstm, fc)` may return the loss
    function (ids, labels) -> loss to use instead of the eager one (skiff: to_static)."""
    if paddle is None:
        import paddle
        if hasattr(paddle.base.core, "set_num_threads"):
            paddle.base.core.set_num_threads(threads)
    paddle.set_device("cpu")
    v = values()
    emb, lstm, fc, opt = paddle_language_model(paddle, v)
    if convert is None:
        def loss_of(ids, labels):
            return language_model_loss(paddle, emb, lstm, fc, ids, labels)
    else:
        loss_of = convert(emb, lstm, fc)
    ids = paddle.to_tensor(v["ids"])
    labels = paddle.to_tensor(v["labels"].reshape(-1, 1))

    def step():
        loss = loss_of(ids, labels)
        loss.backward()
        opt.step()
        opt.clear_grad()
        return float(loss)

    losses = [step() for _ in range(LOSS_STEPS + 1)]
    return median_ms(step, reps), losses[0], losses[LOSS_STEPS]


def run_one(peer, reps, threads):
    """Runs one peer in this process; prints its RESULT and LOSS lines."""
    try:
        __import__(peer)
    except ImportError:
        print(f"SKIP {peer} (package '{peer}' is not installed)")
        return
    ms, first, later = (run_torch if peer == "torch" else run_paddle)(reps, threads)
    print(f"RESULT {peer} {ms:.4f}")
    print(f"LOSS {peer} {first:.6f} {later:.6f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--peer", action="append", choices=PEERS,
                    help="run only these peers (default: all)")
    ap.add_argument("--threads", type=int, default=THREADS)
    ap.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    reps = max(5, args.reps)
    peers = args.peer or PEERS

    if args.in_process:
        for peer in peers:
            run_one(peer, reps, args.threads)
        return

    threads = str(args.threads)
    env = dict(os.environ, OMP_NUM_THREADS=threads, MKL_NUM_THREADS=threads, CPU_NUM="1")
    print(f"W4 peers, {reps} reps, {threads} threads (median ms per training step)")
    for peer in peers:
        cmd = [sys.executable, os.path.abspath(__file__), "--in-process", "--peer", peer,
               "--reps", str(reps), "--threads", threads]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode != 0:
            err = proc.stderr.strip().splitlines()
            print(f"FAILED {peer}: {err[-1] if err else 'exit code ' + str(proc.returncode)}")
            continue
        for ln in proc.stdout.splitlines():
            if ln.startswith(("RESULT", "LOSS", "SKIP")):
                print(ln)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
