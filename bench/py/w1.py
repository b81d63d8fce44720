"""W1 in skiff from Python: `while i < steps: h = tanh(x @ W + h); i += 1`, x [1,16],
W [16,16], fp32, 10k steps, with bench/w1_peers.py's values and timing (median of the reps
after two warm-up calls).

  skiff_eager      the loop run eagerly by Python (as the PyTorch and Paddle eager peers)
  skiff_to_static  the same function under skiff.jit.to_static, the step count a Tensor:
                   the loop becomes a `while` op run by the C++ interpreter

Prints "RESULT <name> <ms per 10k steps>" and "CHECKSUM <name> <sum of h>".

    SKIFF_BUILD_DIR=build .venv/bin/python bench/py/w1.py [--reps 7] [--steps 10000]
"""

import argparse

import harness
import w1_peers

skiff = harness.import_skiff()


def recurrence(x, w, h, i, steps):
    """h after `steps - i` steps of h = tanh(x @ w + h)."""
    while i < steps:
        h = skiff.tanh(x @ w + h)
        i += 1
    return h


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--steps", type=int, default=10000)
    args = ap.parse_args()
    reps, steps = max(5, args.reps), args.steps
    xv, wv = w1_peers.values()
    x, w = skiff.to_tensor(xv), skiff.to_tensor(wv)
    per_10k = 10000.0 / steps

    def eager():
        return recurrence(x, w, skiff.zeros([1, w1_peers.DIM], dtype="float32"), 0, steps)

    converted = skiff.jit.to_static(recurrence)
    h0 = skiff.zeros([1, w1_peers.DIM], dtype="float32")
    i0 = skiff.zeros([1], dtype="int64")
    bound = skiff.full([1], steps, dtype="int64")

    def static():
        return converted(x, w, h0, i0, bound)

    for name, fn in (("skiff_eager", eager), ("skiff_to_static", static)):
        ms, h = w1_peers.median_ms(fn, reps)
        harness.print_result(name, ms * per_10k, checksum=float(h.sum()))


if __name__ == "__main__":
    main()
