"""The package calls ops through skiff._C_ops, the op-call layer generated from the registry's
schemas: every call names a registered op with slots and attributes it has. A misspelt op,
attribute or a wrong number of inputs anywhere in python/skiff fails here, not when a user
first reaches that line."""
import ast
import inspect
import os

import numpy as np
import pytest

import skiff
from skiff import _C_ops

PACKAGE = os.path.dirname(skiff.__file__)
# The cached-op entry points below the generated layer (they take the op type first).
CACHED = {"eager_op", "run_cached", "run_unhooked", "static_apply"}


def _modules():
    for folder, _, files in os.walk(PACKAGE, followlinks=True):
        for name in sorted(files):
            path = os.path.join(folder, name)
            if name.endswith(".py") and name != "_C_ops.py":
                with open(path) as f:
                    yield os.path.relpath(path, PACKAGE), ast.parse(f.read())


def _called(node):
    fn = node.func
    if isinstance(fn, ast.Name):
        return None, fn.id
    if isinstance(fn, ast.Attribute):
        owner = fn.value.id if isinstance(fn.value, ast.Name) else None
        return owner, fn.attr
    return None, None


def _calls():
    for module, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                yield f"{module}:{node.lineno}", node


def test_every_generated_op_call_names_an_op_with_those_slots_and_attributes():
    wrong, checked = [], 0
    for where, node in _calls():
        owner, name = _called(node)
        if owner != "_C_ops":
            continue
        checked += 1
        fn = getattr(_C_ops, name, None)
        if fn is None:
            wrong.append(f"{where}: no op function _C_ops.{name}")
            continue
        starred = any(isinstance(a, ast.Starred) for a in node.args)
        spread = any(k.arg is None for k in node.keywords)
        keywords = {k.arg: None for k in node.keywords if k.arg is not None}
        params = inspect.signature(fn).parameters
        unknown = sorted(set(keywords) - set(params))
        if unknown:
            wrong.append(f"{where}: _C_ops.{name} has no attribute {unknown} (it has "
                         f"{sorted(p for p in params if params[p].kind == p.KEYWORD_ONLY)})")
        elif not starred and not spread:
            try:
                inspect.signature(fn).bind(*[None] * len(node.args), **keywords)
            except TypeError as e:
                wrong.append(f"{where}: _C_ops.{name}: {e}")
    assert checked > 900  # the scan finds the package's op calls
    assert not wrong, "\n".join(wrong)


def test_cached_op_entry_points_name_registered_ops_and_attributes():
    registered = skiff._C.op_traits()
    wrong = []
    for where, node in _calls():
        _, called = _called(node)
        if called not in CACHED or not node.args:
            continue
        first = node.args[0]
        if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
            continue
        if first.value not in registered:
            wrong.append(f"{where}: no op '{first.value}' is registered")
            continue
        attrs = next((k.value for k in node.keywords if k.arg == "attrs"), None)
        if attrs is None and len(node.args) > 1:
            attrs = node.args[1] if called == "eager_op" else (
                node.args[2] if len(node.args) > 2 else None)
        if isinstance(attrs, ast.Dict) and all(isinstance(k, ast.Constant) for k in attrs.keys):
            known = {a["name"] for a in skiff._C.op_schema(first.value)["attrs"]}
            unknown = sorted({k.value for k in attrs.keys} - known)
            if unknown:
                wrong.append(f"{where}: op '{first.value}' has no attribute {unknown}")
    assert not wrong, "\n".join(wrong)


def test_no_module_calls_apply_with_an_op_name_written_out():
    """apply stays for op types chosen at run time (an op family's factory); an op the
    code names is called through its generated function."""
    found = []
    for where, node in _calls():
        _, called = _called(node)
        if called == "apply" and node.args and isinstance(node.args[0], ast.Constant):
            found.append(f"{where}: apply({node.args[0].value!r}, ...): call "
                         f"_C_ops.{node.args[0].value} instead")
    assert not found, "\n".join(found)


def test_every_registered_op_has_a_function_with_its_schema():
    for op in skiff._C.op_traits():
        name = op + "_" if op in ("while", "assert", "print") and not hasattr(_C_ops, op) else op
        fn = getattr(_C_ops, name)
        schema = skiff._C.op_schema(op)
        params = inspect.signature(fn).parameters.values()
        inputs = [p for p in params if p.kind == p.POSITIONAL_ONLY]
        attrs = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
        assert len(inputs) == len(schema["inputs"]), op
        assert attrs == [a["name"] for a in schema["attrs"] if a["required"]] + [
            a["name"] for a in schema["attrs"] if not a["required"]] + ["output_counts", "out"]
        assert schema["doc"].split(" ")[0] in fn.__doc__


def test_generated_functions_pass_attributes_and_leave_defaults_to_the_registry():
    x = skiff.to_tensor(np.array([1.0, -2.0], dtype="float32"))
    np.testing.assert_allclose(_C_ops.scale(x, scale=3.0, bias=1.0).numpy(), [4.0, -5.0])
    np.testing.assert_allclose(_C_ops.scale(x).numpy(), [1.0, -2.0])  # scale's defaults
    out = skiff.zeros([2])
    _C_ops.relu(x, out=[out])
    np.testing.assert_allclose(out.numpy(), [1.0, 0.0])
    with pytest.raises(TypeError, match="scael"):
        _C_ops.scale(x, scael=3.0)
    with pytest.raises(TypeError, match="out_dtype"):
        _C_ops.cast(x)  # a required attribute


def test_generated_calls_are_seen_by_static_mode_and_hooks():
    seen = []

    def hook(type, inputs, attrs, output_counts, out):
        seen.append((type, dict(attrs)))
        return skiff.framework.core.run_unhooked(type, inputs, attrs, output_counts, out)

    ones = skiff.ones([2])
    with skiff.framework.core.hooked(hook):
        _C_ops.scale(ones, scale=2.0)
    assert seen == [("scale", {"scale": 2.0})]
    main = skiff.static.Program()
    skiff.enable_static()
    try:
        with skiff.static.program_guard(main, skiff.static.Program()):
            v = skiff.static.data("v", [2], "float32")
            _C_ops.scale(v, scale=2.0)
    finally:
        skiff.disable_static()
    assert [op.type for op in main.global_block().ops] == ["scale"]
