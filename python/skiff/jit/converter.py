"""Turns a Python function into its to_static form: parses its source, runs the
lowering passes and the control-flow conversion, and compiles the result against the
function's own globals and closure, keeping the user's file name and line numbers."""
import ast
import inspect
import linecache
import os
import sys
import textwrap
import types
import weakref

from .. import _C
from . import ast_lowering as lowering
from .. import tensor
from ..tensor import manipulation
from . import config, convert_ops, static_control
from .ast_convert import BlockConverter, ConversionError

_converted = {}  # code object -> (converted code, or an Error to raise)
_converted_lambdas = set()  # code of the lambdas in converted code (converted with it)
_SKIFF_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
_LIBRARY_DIRS = tuple({os.path.abspath(p) for p in (sys.prefix, sys.base_prefix,
                                                    sys.exec_prefix)})
_not_converted = weakref.WeakSet()


class SourceUnavailable(_C.Error):
    """The function's source cannot be found (code run by exec, typed at a prompt)."""


def not_to_static(fn):
    """Marks ``fn`` to run as written (traced, not converted) inside to_static code."""
    try:
        _not_converted.add(fn)
    except TypeError:
        pass
    return fn


def _parse(fn):
    code = fn.__code__
    if code.co_name == "<lambda>":
        return _parse_lambda(code)
    try:
        # From the code object: inspect would follow a decorator's __wrapped__ to the
        # function it wraps, and convert that body in the wrapper's place.
        lines, start = inspect.getsourcelines(code)
    except (OSError, TypeError) as e:
        raise SourceUnavailable(f"to_static needs the source of {fn.__qualname__} ({e})") \
            from None
    tree = ast.parse(textwrap.dedent("".join(lines)))
    ast.increment_lineno(tree, start - 1)
    return tree.body[0]


def _parse_lambda(code):
    """A lambda (made outside converted code) as the function `_jst_lambda` returning its
    expression, found in its file's source by its line and arguments (and, when several
    lambdas on that line take the same arguments, by where its body starts)."""
    where = f"{code.co_filename}:{code.co_firstlineno}"
    source = "".join(linecache.getlines(code.co_filename))
    try:
        tree = ast.parse(source) if source else None
    except (SyntaxError, ValueError):
        tree = None
    if tree is None:
        raise SourceUnavailable(f"to_static needs the source of the lambda at {where}")
    argc = code.co_argcount + code.co_kwonlyargcount + \
        bool(code.co_flags & inspect.CO_VARARGS) + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    names = code.co_varnames[:argc]
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
             and n.lineno == code.co_firstlineno and _arg_names(n.args) == names]
    if len(found) > 1:
        starts = _starts(code)
        found = [n for n in found if (n.body.lineno, n.body.col_offset) in starts]
    if len(found) != 1:
        raise _C.Error(f"{where}: to_static cannot tell this lambda from the others on its "
                       f"line; define it with `def`")
    (lam,) = found
    fdef = ast.FunctionDef(name="_jst_lambda", args=lam.args,
                           body=[ast.copy_location(ast.Return(value=lam.body), lam.body)],
                           decorator_list=[], returns=None, type_params=[])
    return ast.copy_location(fdef, lam)


def _arg_names(args):
    positional = [a.arg for a in args.posonlyargs + args.args]
    rest = [a.arg for a in args.kwonlyargs]
    rest += [args.vararg.arg] if args.vararg else []
    rest += [args.kwarg.arg] if args.kwarg else []
    return tuple(positional + rest)


def _starts(code):
    """(line, column) where each of the code's instructions starts."""
    return {(p[0], p[2]) for p in code.co_positions() if p[0] is not None}


class _Rewrite(ast.NodeTransformer):
    """Private-name mangling for methods and explicit arguments for zero-arg super()."""

    def __init__(self, class_name, first_arg):
        self.prefix = "_" + class_name.lstrip("_") if class_name else None
        self.first_arg = first_arg

    def _mangle(self, name):
        if self.prefix and name.startswith("__") and not name.endswith("__"):
            return self.prefix + name
        return name

    def visit_Attribute(self, node):
        self.generic_visit(node)
        node.attr = self._mangle(node.attr)
        return node

    def visit_Name(self, node):
        node.id = self._mangle(node.id)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if (isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args
                and self.first_arg):
            node.args = [ast.Name(id="__class__", ctx=ast.Load()),
                         ast.Name(id=self.first_arg, ctx=ast.Load())]
        return node


def _declared_outer(fdef):
    names = set()
    for n in ast.walk(fdef):
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            names.update(n.names)
    return names


def _show(stage, fdef, body, qualname):
    if qualname is not None:
        fdef.body = body
        config.show_code(stage, ast.fix_missing_locations(fdef), qualname)


def transform(fdef, filename, class_name=None, qualname=None):
    """Runs every pass over ``fdef`` (in place); returns it. With ``qualname``, the code
    after each stage goes to jit.set_code_level's output."""
    fdef.decorator_list = []
    first = fdef.args.posonlyargs + fdef.args.args
    _Rewrite(class_name, first[0].arg if first else None).visit(fdef)
    counter = lowering.Counter()
    body = lowering.lower_for(fdef.body, counter)
    _show(1, fdef, body, qualname)
    body = lowering.lower_loop_returns(body)
    if lowering.needs_return_flag(body):
        body.insert(0, lowering._assign(lowering.RETURN_FLAG, ast.Constant(False)))
    body = lowering.lower_break_continue(body, counter)
    body = lowering.restructure_returns(body)
    if lowering.has_inner_return(body):
        body = lowering.single_exit(body)
    _show(2, fdef, body, qualname)
    fdef.body = BlockConverter(filename, counter, _declared_outer(fdef)).block(body, set())
    ast.fix_missing_locations(fdef)
    _show(3, fdef, fdef.body, qualname)
    return fdef


def _class_name(fn):
    parts = fn.__qualname__.split(".")
    return parts[-2] if len(parts) >= 2 and parts[-2] != "<locals>" else None


def _compile(fn):
    code = fn.__code__
    fdef = _parse(fn)
    config.log(1, f"converting {fn.__qualname__} ({code.co_filename}:"
                  f"{code.co_firstlineno})")
    try:
        transform(fdef, code.co_filename, _class_name(fn), fn.__qualname__)
    except ConversionError as e:
        raise _C.Error(f"{code.co_filename}:{e.lineno}: to_static: {e}") from None
    freevars = list(code.co_freevars)
    if "__class__" not in freevars:
        freevars.append("__class__")
    factory = ast.FunctionDef(
        name="_jst_factory", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=n) for n in freevars + ["_jst"]], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.copy_location(factory, fdef)
    ast.fix_missing_locations(module)
    compiled = compile(module, code.co_filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    converted = next(c for c in factory_code.co_consts
                     if isinstance(c, types.CodeType) and c.co_name == fdef.name)
    _converted_lambdas.update(_lambdas_in(converted))
    return converted


def converted_source(fn):
    """The source text of ``fn``'s converted form, for reading (to_static's ``code``)."""
    fdef = _parse(fn)
    try:
        transform(fdef, fn.__code__.co_filename, _class_name(fn))
    except ConversionError as e:
        raise _C.Error(f"{fn.__code__.co_filename}:{e.lineno}: to_static: {e}") from None
    return ast.unparse(fdef) + "\n"


def _lambdas_in(code):
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            if c.co_name == "<lambda>":
                yield c
            yield from _lambdas_in(c)


def _cell(value):
    return (lambda: value).__closure__[0]


def convert_function(fn):
    """The converted form of the plain function ``fn`` (compiled once per code object)."""
    entry = _converted.get(fn.__code__)
    if entry is None:
        try:
            entry = _compile(fn)
        except _C.Error as e:
            entry = e
        _converted[fn.__code__] = entry
    if isinstance(entry, Exception):
        raise entry
    cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
    closure = []
    for name in entry.co_freevars:
        if name == "_jst":
            closure.append(_cell(_RUNTIME))
        elif name in cells:
            closure.append(cells[name])
        elif name == fn.__name__:  # a function calling itself by its (global) name
            closure.append(_cell(fn))
        else:
            raise _C.Error(f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: "
                           f"to_static: '{name}' has no value in {fn.__qualname__}'s closure")
    new = types.FunctionType(entry, fn.__globals__, fn.__name__, fn.__defaults__,
                             tuple(closure))
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__doc__ = fn.__doc__
    new.__wrapped__ = fn
    new._jst_converted = True
    return new


def _is_user_code(fn):
    code = getattr(fn, "__code__", None)
    if code is None or getattr(fn, "_jst_converted", False) or fn in _not_converted:
        return False
    path = os.path.realpath(code.co_filename)
    if path.startswith(_SKIFF_DIR + os.sep) or code.co_filename.startswith("<"):
        return False
    if "site-packages" in path or "dist-packages" in path:
        return False
    return not any(path.startswith(os.path.join(d, "lib") + os.sep) for d in _LIBRARY_DIRS)


def convert_callee(fn):
    """What converted code calls in place of ``fn``: the converted form of user
    functions, methods and layers; everything else unchanged."""
    if fn is len:
        return convert_ops.convert_len
    if fn is float or fn is int or fn is bool:
        return convert_ops.python_scalar(fn)
    replacement = _array_aware().get(id(fn))
    if replacement is not None:
        return replacement
    if isinstance(fn, types.FunctionType):
        return fn if fn.__code__ in _converted_lambdas else _try_convert(fn)
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, types.FunctionType):
        converted = _try_convert(fn.__func__)
        return fn if converted is fn.__func__ else types.MethodType(converted, fn.__self__)
    if getattr(fn, "_jst_converted", False):  # a StaticFunction or a converted function
        return fn
    forward = getattr(type(fn), "forward", None)
    if forward is not None and callable(fn) and hasattr(fn, "_sub_layers") \
            and isinstance(forward, types.FunctionType) and _is_user_code(forward) \
            and not config.is_ignored(forward):
        return layer_call(fn)
    return fn


_replacements = {}


def _array_aware():
    """skiff functions that converted code calls in a form taking tensor arrays."""
    if not _replacements:
        for module in (tensor, manipulation):
            for name in ("stack", "concat"):
                fn = getattr(module, name, None)
                if fn is not None:
                    _replacements[id(fn)] = getattr(static_control, name)
    return _replacements


def _try_convert(fn):
    if config.is_ignored(fn):
        config.log(2, f"{fn.__qualname__} runs as written (its module is ignored)")
        return fn
    if not _is_user_code(fn):
        return fn
    try:
        return convert_function(fn)
    except SourceUnavailable:
        return fn


def layer_call(layer):
    """Calls ``layer`` (hooks included) with its forward converted, for code that is
    itself being converted."""
    forward = type(layer).forward

    def call(*args, **kwargs):
        if getattr(forward, "_jst_converted", False) or "forward" in layer.__dict__:
            return layer(*args, **kwargs)
        layer.__dict__["forward"] = types.MethodType(convert_function(forward), layer)
        try:
            return layer(*args, **kwargs)
        finally:
            layer.__dict__.pop("forward", None)
    return call


# What converted code calls as ``_jst.<name>``: the run-time forms of control flow and
# builtins (convert_ops), and convert_call, which converts the user functions it calls.
_RUNTIME = types.SimpleNamespace(
    **{k: v for k, v in vars(convert_ops).items() if not k.startswith("__")},
    convert_call=convert_callee)
