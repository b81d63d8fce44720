"""Replays every entry of fuzz/python_api/corpus/ (calls that crashed or hung skiff when found)
in a fresh, memory-limited process: each must end with a result or a Python exception, never
killed by a signal and never past the time limit. Adding an entry: fuzz/python_api/README.md."""

import importlib.util
import pathlib

import pytest

CHECKOUT = pathlib.Path(__file__).resolve().parents[3]
TIMEOUT = 20  # seconds; the slowest entry (200,000 autograd ops) takes about 2


def _corpus_module():
    """fuzz/python_api/corpus.py, loaded by path (the fuzzer folder is no package)."""
    path = CHECKOUT / "fuzz" / "python_api" / "corpus.py"
    spec = importlib.util.spec_from_file_location("skiff_api_fuzz_corpus", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


corpus = _corpus_module()
ENTRIES = corpus.load_entries()


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry["id"] for entry in ENTRIES])
def test_corpus_entry_ends_without_crash_or_hang(entry):
    result = corpus.run_source(entry["source"], TIMEOUT)
    assert result["outcome"] not in ("crash", "hang"), (
        f"{entry.get('target', '')}: {result['outcome']} {result['detail']} (when found: "
        f"{entry['seen']})\n{entry['source']}\n{result['stderr']}")
