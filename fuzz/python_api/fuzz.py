"""Fuzzes skiff's public Python API: calls every public function, layer, class and Tensor
method with odd arguments in child processes, and reports crashes, hangs and errors that
are internal failures rather than clear messages. See README.md beside this file.

    python fuzz/python_api/fuzz.py --seconds 60 --seed 1 [--workers 2] [--only 'skiff.linalg.*']

Exit status: 0, or 1 after a crash or hang that happens again in a fresh process (with
--strict also after bad errors and unconfirmed crashes), 2 when skiff does not import."""

import argparse
import pathlib
import sys
import time

import corpus
import report
import runner
import tally as tallies


def main(argv=None):
    options = _parse(argv)
    out_dir = pathlib.Path(options.out)
    package_dir = str(corpus.build_dir() / "python" / "skiff")
    deadline = time.monotonic() + options.seconds
    tally = tallies.Tally(options.seed, package_dir, out_dir, options.call_timeout, deadline,
                          options.log)
    fuzzer = runner.Runner(options.seed, deadline, options.workers,
                           options.call_timeout, options.only, tally)
    try:
        fuzzer.run()
    except runner.SetupError as error:
        print(f"fuzz: {error}", file=sys.stderr)
        return 2
    print(report.summary_text(tally, options.sample_errors))
    return 1 if tally.failed(options.strict) else 0


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="how long to fuzz")
    parser.add_argument("--seed", type=int, default=1, help="run seed: same seed, same calls")
    parser.add_argument("--workers", type=int, default=1, help="child processes at once")
    parser.add_argument("--only", default=None,
                        help="fnmatch pattern of the functions to call, e.g. 'skiff.linalg.*'")
    parser.add_argument("--out", default=str(corpus.CORPUS_DIR),
                        help="folder the confirmed crashes and hangs are written to "
                             "(default: the corpus)")
    parser.add_argument("--call-timeout", type=float, default=10.0,
                        help="seconds one call may take before it counts as a hang")
    parser.add_argument("--sample-errors", type=int, default=0, metavar="N",
                        help="print N clean error messages drawn at random")
    parser.add_argument("--strict", action="store_true",
                        help="exit 1 on bad errors and unconfirmed crashes too")
    parser.add_argument("--log", default=None,
                        help="append every bad error and finding to this file as JSON lines")
    return parser.parse_args(argv)


if __name__ == "__main__":
    sys.exit(main())
