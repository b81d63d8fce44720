"""The fuzzing child: makes calls FIRST .. FIRST+COUNT-1 of a seeded run and reports each on
file descriptor EVENTS_FD (default 3), one JSON line per event, the call's record written
before the call is made so that the parent knows the culprit when this process dies.

    python child.py --seed 1 --first 200 --count 100 [--only 'skiff.linalg.*']

Events: {"ev": "ready", "targets": N}; {"ev": "start", "i", "phase", "t", "kind", "source",
"recipe"}; {"ev": "end", "i", "status", "type", "message", "kind", "site"}; {"ev": "done"}.
Phase 2 runs backward through a result the call made (its source recomputes the call)."""

import argparse
import faulthandler
import fnmatch
import gc
import json
import os
import random
import sys
import warnings

import calls
import corpus
import outcome
import targets as t

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")


def main():
    options = _parse()
    corpus.limit_child()
    sys.path.insert(0, str(corpus.build_dir() / "python"))
    import numpy as np  # here, under the memory limit
    import skiff  # here: from the build tree, whose path is known only now
    warnings.simplefilter("ignore")
    faulthandler.enable(all_threads=True)
    report = _reporter(options.events_fd)
    chosen = select_targets(t.api_targets(skiff), options.only)
    report(ev="ready", targets=len(chosen))
    if not chosen:
        return
    caller = _Caller(skiff, np, options, report)
    for index in range(options.first, options.first + options.count):
        target = chosen[call_target_index(options.seed, index, len(chosen))]
        try:
            recipe = calls.draw_call(random.Random(f"{options.seed}/{index}"), target)
            source = calls.source(recipe, target.kind)
        except Exception as error:  # a bug of the fuzzer's, not of skiff's
            report(ev="end", i=index, status="fuzzer-error", type=type(error).__name__,
                   message=str(error)[:300], t=target.name)
            continue
        report(ev="start", i=index, phase=1, t=target.name, kind=target.kind, source=source,
               recipe=recipe)
        value, backward = caller.call(index, source, calls.is_statement(recipe),
                                      recipe.get("bw", False))
        if backward is not None:
            report(ev="start", i=index, phase=2, t=target.name, kind=target.kind,
                   source=f"y = {source}; {backward}", recipe=recipe)
            caller.namespace["y"] = value
            value = None
            caller.call(index, backward, True, False)
    report(ev="done")


def select_targets(all_targets, only):
    """The targets whose name matches the fnmatch pattern only (all when only is None)."""
    if not only:
        return all_targets
    return [target for target in all_targets if fnmatch.fnmatchcase(target.name, only)]


def call_target_index(seed, index, count):
    """Which of count targets call index of a seeded run calls."""
    return random.Random(f"target {seed}/{index}").randrange(count)


def backward_statement(skiff, result):
    """The statement running backward from result, y in it (its first item for a list), when
    that is a floating tensor autograd tracks; None otherwise."""
    try:
        first = result[0] if isinstance(result, (list, tuple)) and result else result
        if not isinstance(first, skiff.Tensor) or first.stop_gradient:
            return None
        if str(first.dtype).rsplit(".", 1)[-1] not in FLOAT_DTYPES:
            return None
    except Exception:
        return None
    return ("y[0]" if first is not result else "y") + ".sum().backward()"


class _Caller:
    """Makes calls from their source. Everything a call made is freed, and the garbage
    collector run, before its end is reported: a crash while freeing is the call's."""

    def __init__(self, skiff, np, options, report):
        self.skiff = skiff
        self.namespace = {"skiff": skiff, "np": np}
        self.options = options
        self.report = report
        self.package_dir = os.path.dirname(skiff.__file__)

    def call(self, index, source, is_statement, backward_wanted):
        """Runs source, reports its end; returns (value, backward statement) when a backward
        pass through the value follows, else (None, None)."""
        # The stack of a stuck call goes to stderr before the parent kills this process.
        faulthandler.dump_traceback_later(self.options.call_timeout * 0.8, exit=False)
        end = {"ev": "end", "i": index, "status": "ok"}
        value = backward = None
        try:
            code = compile(source, outcome.CALL_SITE, "exec" if is_statement else "eval")
            value = eval(code, self.namespace)
            if backward_wanted:
                backward = backward_statement(self.skiff, value)
            if backward is None:
                value = None
        except BaseException as error:  # SystemExit and KeyboardInterrupt are findings too
            status, kind = outcome.classify(error, self.package_dir)
            end.update(status=status, type=type(error).__name__, message=str(error)[:500],
                       kind=kind, site=outcome.site(error, self.package_dir))
        self.namespace.pop("y", None)
        gc.collect(1)
        faulthandler.cancel_dump_traceback_later()
        self.report(**end)
        return value, backward


def _reporter(fd):
    """A function writing one event as a JSON line to fd at once (no buffering)."""
    def report(**event):
        os.write(fd, (json.dumps(event, default=repr) + "\n").encode())
    return report


def _parse():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--first", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--only", default=None)
    parser.add_argument("--events-fd", type=int, default=3)
    parser.add_argument("--call-timeout", type=float, default=10.0,
                        help="seconds before faulthandler writes the stack of a stuck call")
    return parser.parse_args()


if __name__ == "__main__":
    main()
