"""Adds a hand-written call to the corpus: runs the source once in a fresh, memory-limited
process, records what it did, and writes fuzz/python_api/corpus/<hash>.json.

    python fuzz/python_api/add_entry.py 'skiff.diff(skiff.ones([2, 3]), 10**20)' \\
        --target skiff.diff

The source runs with skiff and numpy (as np) imported; it may span several lines."""

import argparse
import sys

import corpus
import crashes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("source", help="Python that calls skiff")
    parser.add_argument("--target", default=None, help="the function the entry is about")
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds before the run counts as a hang")
    parser.add_argument("--out", default=str(corpus.CORPUS_DIR), help="corpus folder")
    options = parser.parse_args(argv)
    result = corpus.run_source(options.source, options.timeout)
    if result["outcome"] in ("crash", "hang"):
        seen = crashes.seen_text(result)
    else:
        seen = f"{result['outcome']} {result['detail']}".strip()
    path = corpus.write_entry(options.out, {"target": options.target, "source": options.source,
                                            "seen": seen, "found": "hand"})
    print(f"{path}: {seen}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
