"""W2 (MLP 784-512-512-10, Adam, softmax cross-entropy, batch 64) and W3 (the CNN, SGD
momentum 0.9, batch 64) trained eagerly in skiff from Python: bench/peers.py's PaddlePaddle
training code run unchanged with skiff as its `paddle` module (skiff.nn layers,
skiff.optimizer, eager backward), from the same parameter values and batch as the C++
programs and the peers; timed the same way (median of the reps, each STEPS steps, after two
warm-up reps).

Prints "RESULT skiff_py <ms per step>" and "LOSS skiff_py <first step> <step 5>".

    SKIFF_BUILD_DIR=build .venv/bin/python bench/py/w2_w3.py --workload w3 [--reps 7]
"""

import argparse

import harness
import peers


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workload", required=True, choices=["w2", "w3"])
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    skiff = harness.import_skiff()
    out = peers.run_paddle(args.workload, max(5, args.reps), False, paddle=skiff)
    harness.print_result("skiff_py", out["ms"], loss=out["loss"])


if __name__ == "__main__":
    main()
