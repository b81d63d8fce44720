"""Writes skiff/_C_ops.py, the typed op-call layer, from the registry's op schemas.

    python gen_c_ops.py <path of the built _C module> <output .py>

One function per registered op, named for the op: its input slots are positional
parameters in schema order (optional ones default to None, duplicable ones take a list),
its attributes keyword-only parameters (required ones without a default), then
``output_counts`` and ``out`` as ``framework.core.apply`` takes them. Each function
calls ``framework.core.dispatch``, so static mode and every hook see the call. A misspelt op is an
AttributeError and a misspelt attribute a TypeError where it is called, and a checker
(tests/python/framework/test_op_calls.py) finds both in the package without running it.

Runs at build time against the freshly built binding (it loads ``_C`` by path: the
package around it imports the module this writes)."""
import importlib.util
import keyword
import re
import sys

# Keyword parameters every function has (apply's own).
_RESERVED = ("output_counts", "out")


def _load_binding(path):
    spec = importlib.util.spec_from_file_location("_C", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _python_name(name, taken):
    """``name`` in snake case, with a trailing underscore while it is a Python keyword,
    a builtin the module uses, or already ``taken``."""
    snake = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name.replace("@GRAD", "Grad")).lower()
    snake = re.sub(r"\W", "_", snake)
    while keyword.iskeyword(snake) or snake in taken:
        snake += "_"
    return snake


def _doc_lines(schema):
    lines = [schema["doc"] or f"The {schema['type']} op.", ""]
    if schema["inputs"]:
        lines.append("Inputs:")
        for slot in schema["inputs"]:
            kind = ", a list" if slot["duplicable"] else ""
            kind += ", optional" if slot["optional"] else ""
            lines.append(f"    {slot['name']}{kind}: {slot['doc']}")
    if schema["attrs"]:
        lines.append("Attributes:")
        for a in schema["attrs"]:
            default = "required" if a["required"] else f"default {a['default']!r}"
            lines.append(f"    {a['name']} ({a['type']}, {default}): {a['doc']}")
    if schema["outputs"]:
        lines.append("Outputs:")
        for slot in schema["outputs"]:
            kind = ", a list" if slot["duplicable"] else ""
            lines.append(f"    {slot['name']}{kind}: {slot['doc']}")
    text = "\n".join(f"    {line}" if line and i else line for i, line in enumerate(lines))
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _function(schema):
    op = schema["type"]
    attrs = [a["name"] for a in schema["attrs"]]
    for a in attrs:
        if not a.isidentifier() or keyword.iskeyword(a) or a in _RESERVED:
            raise SystemExit(f"gen_c_ops: op '{op}' has attribute '{a}', which cannot be "
                             "a Python keyword parameter: rename it in the op's schema")
    taken = set(attrs) | set(_RESERVED) | {"dispatch", "_UNSET"}
    params, inputs = [], []
    # Optional slots default to None from the last required one on (an optional slot
    # before a required one is passed, as None when absent).
    slots = schema["inputs"]
    trailing = len(slots)
    while trailing and slots[trailing - 1]["optional"]:
        trailing -= 1
    for i, slot in enumerate(slots):
        name = _python_name(slot["name"], taken)
        taken.add(name)
        inputs.append(name)
        params.append(f"{name}=None" if i >= trailing else name)
    if params:
        params.append("/")
    params.append("*")
    required = [a["name"] for a in schema["attrs"] if a["required"]]
    optional = [a["name"] for a in schema["attrs"] if not a["required"]]
    params += required + [f"{a}=_UNSET" for a in optional] + ["output_counts=None", "out=None"]
    body = ["    attrs = {" + ", ".join(f'"{a}": {a}' for a in required) + "}"]
    for a in optional:
        body += [f"    if {a} is not _UNSET:", f'        attrs["{a}"] = {a}']
    call_inputs = f"({inputs[0]},)" if len(inputs) == 1 else f"({', '.join(inputs)})"
    body.append(f'    return dispatch("{op}", {call_inputs}, attrs, output_counts, out)')
    name = _python_name(op, {"dispatch", "_UNSET"})
    return "\n".join([f"def {name}({', '.join(params)}):", f'    """{_doc_lines(schema)}\n    """',
                      *body]), name


def generate(binding):
    ops = sorted(binding.op_traits())
    functions = [_function(binding.op_schema(op)) for op in ops]
    header = f'''"""The typed op-call layer: one function per registered op ({len(ops)} ops).

Generated at build time by python/gen_c_ops.py from the registry's op schemas; do not edit.
Every function goes through skiff.framework.core.dispatch, the one dispatch point."""
from .framework.core import dispatch

__all__ = [{", ".join(repr(name) for _, name in functions)}]

# An attribute left out of a call: the op's registered default applies.
_UNSET = object()
'''
    return header + "".join(f"\n\n{text}\n" for text, _ in functions)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    source = generate(_load_binding(argv[1]))
    with open(argv[2], "w") as f:
        f.write(source)


if __name__ == "__main__":
    main(sys.argv)
