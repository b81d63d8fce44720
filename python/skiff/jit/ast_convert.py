"""The last pass of the to_static transform: every `if` and `while` becomes a call of
a runtime helper (convert_ifelse / convert_while) that runs Python control flow for
Python conditions and builds cond / while ops for tensor conditions; `and`/`or`/`not`,
conditional expressions and calls go through helpers too."""
import ast

from .ast_lowering import JST, _jst_call, _name
from .ast_names import (assigned_names, attribute_stores, block_effects, exposed_reads,
                        loaded_names)

# Builtins called as they are (no conversion of their callee is useful).
_PLAIN_BUILTINS = frozenset((
    "abs", "all", "any", "callable", "chr", "dict", "dir", "divmod", "enumerate",
    "format", "frozenset", "getattr", "globals", "hasattr", "hash", "id", "isinstance",
    "issubclass", "iter", "list", "locals", "map", "max", "min", "next",
    "object", "ord", "print", "repr", "reversed", "round", "set", "setattr", "slice",
    "sorted", "str", "sum", "super", "tuple", "type", "vars", "zip", "range", "filter"))


class ConversionError(Exception):
    """A construct the transform cannot convert; carries the source line."""

    def __init__(self, message, lineno):
        super().__init__(message)
        self.lineno = lineno


class _ExprConverter(ast.NodeTransformer):
    """Rewrites expressions, lambdas' bodies included (converted code calls its lambdas
    as they are: converter.convert_callee)."""

    def __init__(self, loc):
        self.loc = loc

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "convert_and" if isinstance(node.op, ast.And) else "convert_or"
        rest = [ast.Lambda(args=_no_args(), body=v) for v in node.values[1:]]
        return ast.copy_location(_jst_call(fn, node.values[0], *rest), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return ast.copy_location(_jst_call("convert_not", node.operand), node)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return ast.copy_location(_jst_call(
            "convert_ifexp", node.test, ast.Lambda(args=_no_args(), body=node.body),
            ast.Lambda(args=_no_args(), body=node.orelse), ast.Constant(self.loc(node))),
            node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "shape" and isinstance(node.ctx, ast.Load):
            return ast.copy_location(_jst_call("convert_shape", node.value), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name):
            if f.id == "len" and len(node.args) == 1 and not node.keywords:
                return ast.copy_location(_jst_call("convert_len", node.args[0]), node)
            if f.id == "isinstance" and len(node.args) == 2 and not node.keywords:
                return ast.copy_location(_jst_call("convert_isinstance", *node.args), node)
            if f.id == "print":
                node.func = ast.copy_location(ast.Attribute(
                    value=_name(JST), attr="convert_print", ctx=ast.Load()), f)
                return node
            if f.id in _PLAIN_BUILTINS or f.id.startswith("_jst"):
                return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                f.value.id == JST:
            return node
        node.func = ast.copy_location(_jst_call("convert_call", f), f)
        return node


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _args(names):
    a = _no_args()
    a.args = [ast.arg(arg=n) for n in names]
    return a


def _names_tuple(names, store=False):
    return ast.Tuple(elts=[_name(n, store) for n in names],
                     ctx=ast.Store() if store else ast.Load())


def _str_tuple(items):
    return ast.Tuple(elts=[ast.Constant(s) for s in items], ctx=ast.Load())


class BlockConverter:
    """Converts the statements of one function body (see the module docstring)."""

    def __init__(self, filename, counter, outer_names):
        self.filename = filename
        self.counter = counter
        self.outer_names = outer_names  # declared global/nonlocal: cannot be converted
        self.expr = _ExprConverter(self.loc)

    def loc(self, node):
        return f"{self.filename}:{getattr(node, 'lineno', '?')}"

    def convert_expr(self, node):
        return self.expr.visit(node)

    def block(self, stmts, live_out):
        live_after, live = [], set(live_out)
        for s in reversed(stmts):
            live_after.append(set(live))
            exposed, assigned = block_effects([s])
            live = exposed | (live - assigned)
        live_after.reverse()
        out = []
        for s, live in zip(stmts, live_after):
            out.extend(self.stmt(s, live))
        return out

    def stmt(self, s, live_after):
        if isinstance(s, ast.If):
            return self.convert_if(s, live_after)
        if isinstance(s, ast.While):
            return self.convert_while(s, live_after)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return [s]  # converted when called (convert_call)
        if isinstance(s, ast.Assert):
            msg = ast.Lambda(args=_no_args(), body=s.msg or ast.Constant(None))
            call = _jst_call("convert_assert", self.convert_expr(s.test), msg,
                             ast.Constant(self.loc(s)))
            return [ast.copy_location(ast.Expr(value=call), s)]
        if isinstance(s, (ast.Yield, ast.YieldFrom)) or (
                isinstance(s, ast.Expr) and isinstance(s.value, (ast.Yield, ast.YieldFrom))):
            raise ConversionError("generators (yield) cannot be converted", s.lineno)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                setattr(s, field, self.block(block, live_after))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = self.block(h.body, live_after)
        for field, value in ast.iter_fields(s):
            if isinstance(value, ast.expr):
                setattr(s, field, self.convert_expr(value))
            elif isinstance(value, list) and value and isinstance(value[0], ast.expr):
                setattr(s, field, [self.convert_expr(v) for v in value])
            elif isinstance(s, ast.With) and field == "items":
                for item in value:
                    item.context_expr = self.convert_expr(item.context_expr)
        return [s]

    def _check_convertible(self, what, node, blocks, names):
        for b in blocks:
            for n in b:
                for sub in ast.walk(n):
                    if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                        ast.ClassDef)):
                        continue
                    if isinstance(sub, ast.Return):
                        raise ConversionError(
                            f"`return` inside a `try` or other block within this {what} "
                            "cannot be converted; return after the block instead",
                            sub.lineno)
                    if isinstance(sub, (ast.Yield, ast.YieldFrom)):
                        raise ConversionError("generators (yield) cannot be converted",
                                              sub.lineno)
        bad = sorted(set(names) & self.outer_names)
        if bad:
            raise ConversionError(
                f"this {what} assigns {', '.join(bad)}, declared global/nonlocal; "
                "to_static cannot convert that", node.lineno)

    def _fn(self, name, params, body, returns):
        body = body + [ast.Return(value=_names_tuple(returns))]
        return ast.FunctionDef(name=name, args=_args(params), body=body, decorator_list=[],
                               returns=None, type_params=[])

    def _get_vars(self, names):
        call_locals = ast.Call(func=_name("locals"), args=[], keywords=[])
        return _jst_call("get_vars", call_locals, _str_tuple(names))

    def convert_if(self, s, live_after):
        names = sorted(assigned_names(s.body + s.orelse))
        self._check_convertible("if", s, [s.body, s.orelse], names)
        side_effects = attribute_stores(s.body + s.orelse)
        body = self.block(s.body, live_after)
        orelse = self.block(s.orelse, live_after)
        t_name, f_name = self.counter.next("true"), self.counter.next("false")
        t_fn = self._fn(t_name, names, body or [ast.Pass()], names)
        f_fn = self._fn(f_name, names, orelse or [ast.Pass()], names)
        call = _jst_call(
            "convert_ifelse", self.convert_expr(s.test), _name(t_name), _name(f_name),
            self._get_vars(names), _str_tuple(names),
            _str_tuple([n for n in names if n in live_after]),
            _str_tuple([f"{a} (line {ln})" for a, ln in side_effects]),
            ast.Constant(self.loc(s)))
        result = ast.Assign(targets=[_names_tuple(names, True)], value=call) if names \
            else ast.Expr(value=call)
        return [self._fix(n, s) for n in (t_fn, f_fn, result)]

    def convert_while(self, s, live_after):
        assigned = assigned_names(s.body)
        carried = assigned & (loaded_names([s.test]) | live_after | exposed_reads(s.body))
        names = sorted(carried)
        self._check_convertible("while loop", s, [s.body], sorted(assigned))
        side_effects = attribute_stores(s.body)
        body_live = set(live_after) | loaded_names([s.test]) | exposed_reads(s.body)
        body = self.block(s.body, body_live)
        c_name, b_name = self.counter.next("cond"), self.counter.next("body")
        c_fn = ast.FunctionDef(name=c_name, args=_args(names), body=[
            ast.Return(value=self.convert_expr(s.test))], decorator_list=[], returns=None,
            type_params=[])
        b_fn = self._fn(b_name, names, body or [ast.Pass()], names)
        call = _jst_call(
            "convert_while", _name(c_name), _name(b_name), self._get_vars(names),
            _str_tuple(names),
            _str_tuple([f"{a} (line {ln})" for a, ln in side_effects]),
            ast.Constant(self.loc(s)))
        result = ast.Assign(targets=[_names_tuple(names, True)], value=call) if names \
            else ast.Expr(value=call)
        return [self._fix(n, s) for n in (c_fn, b_fn, result)]

    @staticmethod
    def _fix(node, origin):
        ast.copy_location(node, origin)
        return ast.fix_missing_locations(node)
