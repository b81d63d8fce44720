"""The to_static idiom corpus under skiff: every case converts (the converted function
gives eager's values and gradients), except the refusals listed below, each of which must
raise skiff.Error naming a source line (".py:<line>"). A case that starts to differ from
eager, or a refusal that loses its line, fails; so does a listed case that now converts
(take it off the list). bench/to_static_corpus.py runs the same cases under Paddle."""
import collections
import functools

import pytest

import skiff

from . import corpus

SKIFF = corpus.skiff_framework()
CASES = {case.name: case for case in corpus.load(skiff)}

# Refused with a message that names the line: what one program cannot hold.
EXPECTED_REFUSALS = {
    "none_kept_by_tensor_branch": "None or a Tensor after the loop, by the values",
}

# Known failures worse than a refusal: wrong values, crashes, refusals naming no line.
KNOWN_FAILURES = {
}


@functools.cache
def result(name):
    return corpus.run(SKIFF, CASES[name])


def _param(name):
    reason = KNOWN_FAILURES.get(name)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, marks=marks, id=name)


@pytest.mark.parametrize("name", [_param(name) for name in CASES])
def test_case(name):
    r = result(name)
    assert r.outcome != "differs", f"gives other values than eager: {r.message}"
    if name in EXPECTED_REFUSALS:
        assert r.outcome != "converts", "now converts: take it off EXPECTED_REFUSALS"
        assert r.outcome == "refuses", f"{r.outcome}: {r.message}"
        assert r.names_a_line, f"the refusal names no source line: {r.message}"
    else:
        assert r.outcome == "converts", f"{r.outcome}: {r.message}"


def test_lists_name_cases_of_the_corpus():
    assert not set(EXPECTED_REFUSALS) - set(CASES)
    assert not set(KNOWN_FAILURES) - set(CASES)
    assert not set(EXPECTED_REFUSALS) & set(KNOWN_FAILURES)


def test_counts(capsys):
    counts = collections.Counter(result(name).outcome for name in CASES)
    with capsys.disabled():
        print(f"\nto_static corpus, {len(CASES)} cases in skiff: " +
              ", ".join(f"{o} {counts[o]}" for o in ("converts", "refuses", "differs",
                                                       "crashes", "eager fails")))
    unexpected = [n for n in CASES if result(n).outcome == "differs" and n not in KNOWN_FAILURES]
    assert not unexpected, f"cases that give other values than eager: {unexpected}"
