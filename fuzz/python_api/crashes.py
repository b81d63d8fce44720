"""Crashes and hangs seen in a fuzz run: where they happened, whether they happen again in a
fresh process, and their corpus entries.

    program, result = confirm(source, earlier_sources, timeout=30)
    if program is not None:
        write_entry(...)             # corpus.write_entry with the program that reproduces"""

import re

import corpus

PREFIX_CALLS = 20  # earlier calls of the batch replayed when the call alone does not fail
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+) in (?P<name>\S+)')


def parse_site(stderr, package_dir):
    """The skiff frames of the last stack faulthandler wrote to stderr, outermost (the API
    function) and innermost: "linalg/spectral.py:27 in svd > framework/core.py:51 in apply";
    one frame alone when they are the same, "" when none is there."""
    marker = stderr.rfind("most recent call first")
    if marker < 0:
        return ""
    frames = [f"{match['file'][len(package_dir):].lstrip('/')}:{match['line']} in "
              f"{match['name']}" for match in FRAME.finditer(stderr[marker:])
              if match["file"].startswith(package_dir)]
    if not frames:
        return ""
    return frames[-1] if len(frames) == 1 else f"{frames[-1]} > {frames[0]}"


def confirm(source, earlier_sources, timeout):
    """Runs source alone in a fresh process; when it does not crash or hang there, runs it
    after the last PREFIX_CALLS earlier calls (errors ignored). Returns (program, result):
    program is the source that reproduces, or None; result is corpus.run_source's."""
    result = corpus.run_source(source, timeout)
    if result["outcome"] in ("crash", "hang"):
        return source, result
    if not earlier_sources:
        return None, result
    program = "".join(f"try:\n    {earlier}\nexcept Exception:\n    pass\n"
                      for earlier in earlier_sources[-PREFIX_CALLS:]) + source
    result = corpus.run_source(program, timeout)
    if result["outcome"] in ("crash", "hang"):
        return program, result
    return None, result


def seen_text(result):
    """What a confirmed finding did, for the corpus entry: "SIGSEGV", "hang (over 30 s)"."""
    if result["outcome"] == "hang":
        return f"hang ({result['detail']})"
    return result["detail"]
