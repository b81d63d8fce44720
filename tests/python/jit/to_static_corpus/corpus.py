"""The to_static idiom corpus: loads the cases with the framework bound, and runs each one
eagerly and through the framework's to_static, comparing outputs and gradients.

    import skiff
    from to_static_corpus import corpus  # with tests/python/jit on sys.path
    for case in corpus.load(skiff):
        print(case.name, corpus.run(corpus.skiff_framework(), case).outcome)

A case's source names the framework `P`; ``load`` executes each cases module with `P`
bound to skiff or to paddle, so the same source runs under both. Outcomes:

- converts: outputs (and the gradients of the sum of the outputs) equal eager's (1e-5);
- refuses:  to_static raised the framework's error (skiff.Error); the message is kept;
- differs:  it ran but gave other values, shapes or gradients than eager (the bad one);
- crashes:  it raised something other than the framework's error (an internal failure);
- eager fails: the case itself does not run eagerly in this framework (a broken case).

A message starts with "backward:" when the converted call ran but its backward failed.
"""
import dataclasses
import importlib.util
import pathlib
import re
import sys
import traceback

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
CASE_MODULES = ("cases_loops", "cases_python", "cases_creation", "cases_layers")
TOLERANCE = 1e-5
LINE = re.compile(r"\.py:\d+")


@dataclasses.dataclass
class Case:
    """One idiom: ``fn`` (a function, or a Layer class built with ``init``) called with
    ``args`` (numpy arrays become Tensors, other values pass as they are); ``grad`` is the
    index of the argument whose gradient is compared; ``spec`` gives InputSpec shapes
    (None for a dimension known at run time) for the Tensor arguments, in order;
    ``label`` names a second case of the same function."""
    fn: object
    args: tuple = ()
    grad: int = None
    spec: list = None
    init: tuple = ()
    idiom: str = ""
    label: str = ""

    @property
    def name(self):
        return self.label or self.fn.__name__


@dataclasses.dataclass
class Framework:
    """What the runner needs from a framework: its module, its to_static and the
    exception type that counts as a refusal."""
    name: str
    module: object
    to_static: object
    error: type


@dataclasses.dataclass
class Result:
    """A case's outcome (see the module's docstring) and the message that explains it."""
    outcome: str
    message: str = ""

    @property
    def names_a_line(self):
        return bool(LINE.search(self.message))


def skiff_framework():
    import skiff
    return Framework("skiff", skiff, skiff.jit.to_static, skiff.Error)


def paddle_framework(full_graph=True):
    """Paddle's to_static: the AST transcriber (full_graph=True, like skiff's) by
    default, the bytecode one (SOT) otherwise; any exception counts as a refusal."""
    import paddle

    def to_static(fn, input_spec=None):
        return paddle.jit.to_static(fn, input_spec=input_spec, full_graph=full_graph)
    name = "paddle AST" if full_graph else "paddle SOT"
    return Framework(name, paddle, to_static, Exception)


def load(module):
    """Every case, with `P` bound to ``module`` (skiff or paddle), in source order."""
    cases = []
    for name in CASE_MODULES:
        qualified = f"{__package__}.{name}_{module.__name__}"
        spec = importlib.util.spec_from_file_location(qualified, HERE / f"{name}.py")
        cases_module = importlib.util.module_from_spec(spec)
        cases_module.P = module
        sys.modules[qualified] = cases_module  # inspect finds class sources through it
        spec.loader.exec_module(cases_module)
        for case in cases_module.CASES:
            case.idiom = case.idiom or name.removeprefix("cases_")
            cases.append(case)
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "case names must be unique"
    return cases


def run(framework, case):
    """The Result of ``case`` under ``framework``: eager, then converted, compared."""
    P = framework.module
    try:
        P.seed(0)
        target = case.fn(*case.init) if isinstance(case.fn, type) else case.fn
        want = _call(P, case, target)
    except Exception as e:
        return Result("eager fails", _message(getattr(e, "error", e)))
    spec = None
    if case.spec is not None:
        spec = [P.static.InputSpec(shape, dtype=str(a.dtype))
                for shape, a in zip(case.spec, _arrays(case))]
    try:
        got = _call(P, case, framework.to_static(target, input_spec=spec))
    except Exception as e:
        stage, error = ("backward: ", e.error) if isinstance(e, _BackwardFailed) else ("", e)
        if isinstance(error, framework.error):
            return Result("refuses", stage + _message(error))
        return Result("crashes", stage + _message(error, where=True))
    problem = _compare(want, got)
    return Result("differs", problem) if problem else Result("converts")


class _BackwardFailed(Exception):
    def __init__(self, error):
        super().__init__(str(error))
        self.error = error


def _arrays(case):
    return [a for a in case.args if isinstance(a, np.ndarray)]


def _call(P, case, target):
    """(flat outputs as numpy, gradient of the ``grad`` argument or None) of one call of
    ``target`` (the case's function or Layer, converted or not)."""
    inputs = [P.to_tensor(a) if isinstance(a, np.ndarray) else a for a in case.args]
    if case.grad is not None:
        inputs[case.grad].stop_gradient = False
    outputs = _flatten(target(*inputs))
    values = [np.asarray(o.numpy() if isinstance(o, P.Tensor) else o) for o in outputs]
    if case.grad is None:
        return values, None
    trained = [o.sum() for o in outputs if isinstance(o, P.Tensor) and not o.stop_gradient
               and "float" in str(o.dtype)]
    if trained:
        try:
            P.add_n(trained).backward()
        except Exception as e:
            raise _BackwardFailed(e) from e
    grad = inputs[case.grad].grad
    return values, None if grad is None else grad.numpy()


def _flatten(value):
    if isinstance(value, (list, tuple)):
        return [leaf for v in value for leaf in _flatten(v)]
    if isinstance(value, dict):
        return [leaf for k in sorted(value) for leaf in _flatten(value[k])]
    return [value]


def _compare(want, got):
    """What differs between eager's (outputs, grad) and the converted one's, or ''."""
    (want_out, want_grad), (got_out, got_grad) = want, got
    if len(want_out) != len(got_out):
        return f"{len(got_out)} outputs, eager gives {len(want_out)}"
    for i, (w, g) in enumerate(zip(want_out, got_out)):
        problem = _close(w, g)
        if problem:
            return f"output {i}: {problem}"
    if want_grad is None:
        if got_grad is not None and np.any(got_grad):
            return "gradient where eager has none"
        return ""
    if got_grad is None:
        return "no gradient, eager has one" if np.any(want_grad) else ""
    problem = _close(want_grad, got_grad)
    return f"gradient: {problem}" if problem else ""


def _close(want, got):
    if want.shape != got.shape:
        return f"shape {list(got.shape)}, eager {list(want.shape)}"
    if want.dtype.kind in "fiub" and got.dtype.kind in "fiub":
        if not np.allclose(got, want, rtol=TOLERANCE, atol=TOLERANCE):
            return f"{got.ravel()[:6].tolist()} vs eager {want.ravel()[:6].tolist()}"
        return ""
    return "" if np.array_equal(want, got) else f"{got!r} vs eager {want!r}"


def _message(error, where=False):
    """The exception's type and message on one line; with ``where``, the line that
    raised it."""
    text = f"{type(error).__name__}: {' '.join(str(error).split())}"
    if where:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        text += f" (raised at {frame.filename}:{frame.lineno})"
    return text
