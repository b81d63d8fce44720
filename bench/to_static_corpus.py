"""Runs the to_static idiom corpus (tests/python/jit/to_static_corpus) under skiff and under
PaddlePaddle's paddle.jit.to_static, and prints one table: per case, the outcome in skiff,
in Paddle's AST transcriber (full_graph=True, the kind of conversion skiff does) and in
Paddle's default bytecode translator (SOT, full_graph=False, which falls back to Python
where it cannot convert), then the totals and the cases skiff does not convert but Paddle's
AST transcriber does (SOT converts every case, running what it cannot convert as Python).

    SKIFF_BUILD_DIR=$PWD/build PYTHONPATH=$PWD/build/python \\
        .venv/bin/python bench/to_static_corpus.py [--no-sot] [--messages] [--case NAME]

Outcomes (corpus.py): converts, refuses, differs (wrong values or gradients), crashes (an
exception other than skiff.Error), eager fails (the case does not run in that framework).
A case's prints and the frameworks' own logging are sent to /dev/null while it runs.
"""
import argparse
import collections
import contextlib
import os
import pathlib
import sys
import warnings

os.environ.setdefault("GLOG_minloglevel", "2")  # Paddle's C++ logging
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests/python/jit"))
from to_static_corpus import corpus  # noqa: E402  (after the path above)

OUTCOMES = ("converts", "refuses", "differs", "crashes", "eager fails")


@contextlib.contextmanager
def quiet():
    """Sends file descriptors 1 and 2 (Python's and C++'s prints) to /dev/null."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in saved + [devnull]:
            os.close(fd)


def run_all(framework, only):
    """{case name: Result} for every case (or the one named ``only``) under ``framework``."""
    results = {}
    for case in corpus.load(framework.module):
        if only and case.name != only:
            continue
        with quiet():
            results[case.name] = corpus.run(framework, case)
    return results


def frameworks(sot):
    with quiet():
        import paddle  # noqa: F401  (imported here so that its import-time output is quiet)
    chosen = [corpus.skiff_framework(), corpus.paddle_framework(full_graph=True)]
    if sot:
        chosen.append(corpus.paddle_framework(full_graph=False))
    return chosen


def short(message, width=150):
    return message if len(message) <= width else message[:width - 3] + "..."


def print_table(cases, columns, messages):
    names = [f.name for f, _ in columns]
    print(f"{'idiom':9} {'case':38} " + " ".join(f"{n:11}" for n in names))
    for case in cases:
        if case.name not in columns[0][1]:
            continue
        outcomes = [results[case.name] for _, results in columns]
        print(f"{case.idiom:9} {case.name:38} " + " ".join(f"{r.outcome:11}" for r in outcomes))
        if messages:
            for name, r in zip(names, outcomes):
                if r.message:
                    print(f"{'':10}{name}: {short(r.message)}")
    print("\ntotals (of", len(columns[0][1]), "cases)")
    for name, results in zip(names, (r for _, r in columns)):
        counts = collections.Counter(r.outcome for r in results.values())
        print(f"  {name:11} " + "  ".join(f"{o} {counts[o]}" for o in OUTCOMES))


def print_gaps(cases, columns):
    """Cases where skiff does not convert but Paddle's AST transcriber does, by idiom."""
    (_, mine), (paddle, theirs) = columns[:2]
    print(f"\nskiff does not convert, {paddle.name} converts:")
    by_idiom = collections.defaultdict(list)
    for case in cases:
        if case.name in mine and mine[case.name].outcome != "converts" \
                and theirs[case.name].outcome == "converts":
            by_idiom[case.idiom].append((case.name, mine[case.name]))
    if not by_idiom:
        print("  (none)")
    for idiom, found in by_idiom.items():
        print(f"  {idiom}:")
        for name, result in found:
            print(f"    {name} [{result.outcome}] {short(result.message, 110)}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-sot", action="store_true", help="skip Paddle's SOT column")
    parser.add_argument("--messages", action="store_true", help="print each message")
    parser.add_argument("--case", help="run only this case")
    args = parser.parse_args()
    chosen = frameworks(sot=not args.no_sot)
    columns = [(f, run_all(f, args.case)) for f in chosen]
    cases = corpus.load(chosen[0].module)
    print_table(cases, columns, args.messages)
    print_gaps(cases, columns)


if __name__ == "__main__":
    main()
