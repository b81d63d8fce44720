"""W4 (LSTM language model training step: embedding 10k x 200, 2-layer LSTM 200, linear
200 -> 10k, softmax cross-entropy, SGD lr 1 with global-norm clipping 0.25; ids [35, 20])
in skiff from Python: bench/w4_peers.py's PaddlePaddle code run with skiff as its `paddle`
module, the loss computed by a Layer converted with skiff.jit.to_static (a program run by
the C++ interpreter through the run_program op; backward, clipping and SGD stay eager).

skiff.nn.LSTM runs each layer as one `lstm` op over all the steps (python/skiff/nn/layer/
rnn.py), so the traced program holds one lstm op per layer (25 ops in all), as the C++-built
program does (skiff/api/rnn.h). --show-program prints the program's op counts.

Prints "RESULT skiff_to_static <ms per step>" and "LOSS skiff_to_static <first> <step 3>".

    SKIFF_BUILD_DIR=build .venv/bin/python bench/py/w4.py [--reps 7] [--show-program]
"""

import argparse
import collections

import harness
import w4_peers

skiff = harness.import_skiff()


class LanguageModel(skiff.nn.Layer):
    """The loss of w4_peers.language_model_loss as a Layer, so to_static can convert it."""

    def __init__(self, emb, lstm, fc):
        super().__init__()
        self.emb, self.lstm, self.fc = emb, lstm, fc

    def forward(self, ids, labels):
        return w4_peers.language_model_loss(skiff, self.emb, self.lstm, self.fc, ids, labels)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--show-program", action="store_true",
                    help="print the op counts of the traced program")
    args = ap.parse_args()
    models = []

    def convert(emb, lstm, fc):
        models.append(skiff.jit.to_static(LanguageModel(emb, lstm, fc)))
        return models[-1]

    ms, first, later = w4_peers.run_paddle(max(5, args.reps), None, paddle=skiff,
                                           convert=convert)
    harness.print_result("skiff_to_static", ms, loss=(first, later))
    if args.show_program:
        (program,) = [p.program for p in models[0].forward.program_cache.values()]
        desc = program.desc
        for b in range(desc.num_blocks):
            ops = collections.Counter(desc.op(b, i).type for i in range(desc.num_ops(b)))
            print(f"block {b}: {sum(ops.values())} ops: "
                  + ", ".join(f"{t} x{n}" for t, n in ops.most_common()))


if __name__ == "__main__":
    main()
