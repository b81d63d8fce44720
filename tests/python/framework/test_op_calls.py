"""Every op the package calls by name exists in the registry, with the attributes it
passes: a misspelt op type or attribute in any `apply("op", ..., attrs={...})`,
`eager_op(...)`, `run_cached(...)` or `run_unhooked(...)` call of python/skiff fails here,
not when a user first reaches that line."""
import ast
import os

import skiff

PACKAGE = os.path.dirname(skiff.__file__)
CALLERS = {"apply", "eager_op", "run_cached", "run_unhooked", "static_apply"}


def _op_calls():
    for folder, _, files in os.walk(PACKAGE, followlinks=True):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                fn = node.func
                called = fn.id if isinstance(fn, ast.Name) else (
                    fn.attr if isinstance(fn, ast.Attribute) else None)
                if called not in CALLERS or not node.args:
                    continue
                first = node.args[0]
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    continue
                attrs = next((k.value for k in node.keywords if k.arg == "attrs"), None)
                if attrs is None and called in ("eager_op", "run_cached", "static_apply",
                                                "run_unhooked") and len(node.args) > 1:
                    attrs = node.args[2] if called in ("run_cached", "static_apply",
                                                       "run_unhooked") and \
                        len(node.args) > 2 else node.args[1]
                keys = None
                if isinstance(attrs, ast.Dict) and all(
                        isinstance(k, ast.Constant) for k in attrs.keys):
                    keys = [k.value for k in attrs.keys]
                where = f"{os.path.relpath(path, PACKAGE)}:{node.lineno}"
                yield where, first.value, keys


def test_every_op_called_by_name_is_registered_with_those_attributes():
    registered = skiff._C.op_traits()
    calls = list(_op_calls())
    assert len(calls) > 500  # the scan finds the package's op calls
    wrong = []
    for where, op, keys in calls:
        if op not in registered:
            wrong.append(f"{where}: no op '{op}' is registered")
            continue
        known = {a["name"] for a in skiff._C.op_schema(op)["attrs"]}
        unknown = sorted(set(keys or ()) - known)
        if unknown:
            wrong.append(f"{where}: op '{op}' has no attribute {unknown} (it has "
                         f"{sorted(known)})")
    assert not wrong, "\n".join(wrong)
