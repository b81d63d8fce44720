"""Lowering passes of the to_static transform, run before control flow is turned into
calls: `for` loops become `while` loops over an index, `return` inside loops becomes a
flag plus `break`, `break`/`continue` become flags that guard the rest of the body,
and early returns are moved to the end so every function has a single exit."""
import ast

RETURN_VALUE = "_jst_rv"
RETURN_FLAG = "_jst_rf"
JST = "_jst"


def _name(id, store=False):
    return ast.Name(id=id, ctx=ast.Store() if store else ast.Load())


def _assign(name, value):
    return ast.Assign(targets=[_name(name, True)], value=value)


def _jst_call(fn, *args):
    return ast.Call(func=ast.Attribute(value=_name(JST), attr=fn, ctx=ast.Load()),
                    args=list(args), keywords=[])


class Counter:
    """Numbers the helper names of one converted function."""

    def __init__(self):
        self.n = 0

    def next(self, prefix):
        self.n += 1
        return f"_jst_{prefix}_{self.n}"


def _walk_loop_level(stmts):
    """Statements and expressions under ``stmts`` that belong to this loop level: not
    inside nested loops or functions."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(child, (ast.While, ast.For)):
                # the loop's own test/iter belong to this level; its body does not
                stack.append(child.test if isinstance(child, ast.While) else child.iter)
                stack.extend(child.orelse)
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                continue
            stack.append(child)


def _contains(stmts, kinds, loop_level=False):
    if loop_level:
        return any(isinstance(n, kinds) for n in _walk_loop_level(stmts))
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            return True
        for child in ast.iter_child_nodes(n):
            if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                      ast.ClassDef)):
                stack.append(child)
    return False


# ---- for -> while -------------------------------------------------------------------

def _is_range_call(node):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "range" and not node.keywords and 1 <= len(node.args) <= 3
            and not any(isinstance(a, ast.Starred) for a in node.args))


def lower_for(stmts, counter):
    """Rewrites every `for` under ``stmts`` (recursively) as a `while` over an index."""
    out = []
    for s in stmts:
        _lower_children(s, lambda b: lower_for(b, counter))
        if not isinstance(s, ast.For):
            out.append(s)
            continue
        it = counter.next("it")
        if _is_range_call(s.iter):
            stop, step = counter.next("stop"), counter.next("step")
            init = ast.Assign(targets=[ast.Tuple(elts=[_name(it, True), _name(stop, True),
                                                      _name(step, True)], ctx=ast.Store())],
                              value=_jst_call("range_args", *s.iter.args))
            test = _jst_call("range_cond", _name(it), _name(stop), _name(step))
            head = [ast.Assign(targets=[s.target], value=_name(it)),
                    _assign(it, ast.BinOp(left=_name(it), op=ast.Add(), right=_name(step)))]
            pre = [init]
        else:
            seq, n = counter.next("seq"), counter.next("len")
            pre = [_assign(seq, _jst_call("for_sequence", s.iter)),
                   _assign(it, ast.Constant(0)),
                   _assign(n, _jst_call("for_length", _name(seq)))]
            test = ast.Compare(left=_name(it), ops=[ast.Lt()], comparators=[_name(n)])
            head = [ast.Assign(targets=[s.target],
                               value=_jst_call("for_item", _name(seq), _name(it))),
                    _assign(it, ast.BinOp(left=_name(it), op=ast.Add(),
                                          right=ast.Constant(1)))]
        loop = ast.While(test=test, body=head + s.body, orelse=s.orelse)
        for node in pre + [loop]:
            ast.copy_location(node, s)
        out.extend(pre)
        out.append(loop)
    return out


def _lower_children(s, fn):
    """Applies ``fn`` to each statement list held by ``s`` (not nested functions)."""
    for field in ("body", "orelse", "finalbody"):
        block = getattr(s, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt) \
                and not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            setattr(s, field, fn(block))
    if isinstance(s, ast.Try):
        for h in s.handlers:
            h.body = fn(h.body)


# ---- return inside loops ------------------------------------------------------------

def lower_loop_returns(stmts, in_loop=False):
    """`return e` inside a loop -> set the return value and flag, then break; after each
    loop, propagate: break out of the enclosing loop, or return at the outermost."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Return) and in_loop:
            value = s.value if s.value is not None else ast.Constant(None)
            out.extend(ast.copy_location(n, s) for n in (
                _assign(RETURN_VALUE, value), _assign(RETURN_FLAG, ast.Constant(True)),
                ast.Break()))
            continue
        if isinstance(s, ast.While):
            had_return = _contains(s.body, ast.Return)
            s.body = lower_loop_returns(s.body, True)
            s.orelse = lower_loop_returns(s.orelse, in_loop)
            out.append(s)
            if had_return:
                exit_ = ast.Break() if in_loop else ast.Return(value=_name(RETURN_VALUE))
                out.append(ast.copy_location(
                    ast.If(test=_name(RETURN_FLAG), body=[exit_], orelse=[]), s))
            continue
        _lower_children(s, lambda b: lower_loop_returns(b, in_loop))
        out.append(s)
    return out


def needs_return_flag(body):
    return any(isinstance(n, ast.Name) and n.id == RETURN_FLAG for s in body
               for n in ast.walk(s))


# ---- break / continue ---------------------------------------------------------------

def lower_break_continue(stmts, counter):
    """Replaces break/continue by flags: the loop test checks the break flag, and the
    statements after one that may set a flag run only while the flags are clear."""
    out = []
    for s in stmts:
        if isinstance(s, ast.While):
            s.body = lower_break_continue(s.body, counter)
            s.orelse = lower_break_continue(s.orelse, counter)
            out.extend(_lower_loop_exits(s, counter))
            continue
        _lower_children(s, lambda b: lower_break_continue(b, counter))
        out.append(s)
    return out


def _lower_loop_exits(loop, counter):
    has_break = _contains(loop.body, ast.Break, loop_level=True)
    has_continue = _contains(loop.body, ast.Continue, loop_level=True)
    brk = counter.next("brk") if has_break else None
    cont = counter.next("cont") if has_continue else None
    pre, post = [], []
    if has_break or has_continue:
        loop.body = _guard_exits(loop.body, brk, cont)
    if brk:
        pre.append(_assign(brk, ast.Constant(False)))
        loop.test = ast.BoolOp(op=ast.And(), values=[
            ast.UnaryOp(op=ast.Not(), operand=_name(brk)), loop.test])
    if cont:
        loop.body.insert(0, _assign(cont, ast.Constant(False)))
    if loop.orelse:
        if brk:
            post.append(ast.If(test=ast.UnaryOp(op=ast.Not(), operand=_name(brk)),
                               body=loop.orelse, orelse=[]))
        else:
            post.extend(loop.orelse)
        loop.orelse = []
    for n in pre + post:
        ast.copy_location(n, loop)
        ast.fix_missing_locations(n)
    return pre + [loop] + post


def _guard_exits(stmts, brk, cont):
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.Break):
            out.append(ast.copy_location(_assign(brk, ast.Constant(True)), s))
            return out  # the rest is unreachable
        if isinstance(s, ast.Continue):
            out.append(ast.copy_location(_assign(cont, ast.Constant(True)), s))
            return out
        exits = _contains([s], (ast.Break, ast.Continue), loop_level=True) and not \
            isinstance(s, ast.While)
        flags = [f for f, kind in ((brk, ast.Break), (cont, ast.Continue))
                 if f and exits and _contains([s], kind, loop_level=True)]
        if exits:
            _lower_children(s, lambda b: _guard_exits(b, brk, cont))
        out.append(s)
        rest = stmts[i + 1:]
        if exits and rest:
            test = ast.BoolOp(op=ast.Or(), values=[_name(f) for f in flags]) \
                if len(flags) > 1 else _name(flags[0])
            guard = ast.If(test=ast.UnaryOp(op=ast.Not(), operand=test),
                           body=_guard_exits(rest, brk, cont), orelse=[])
            out.append(ast.fix_missing_locations(ast.copy_location(guard, rest[0])))
            return out
    return out


# ---- early returns -> one exit ------------------------------------------------------

def _terminates(stmts):
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _terminates(last.body) and _terminates(last.orelse)
    if isinstance(last, ast.With):
        return _terminates(last.body)
    return False


def restructure_returns(stmts):
    """Moves the statements after an `if` whose one branch always returns into its
    other branch, so that returns end the branches they are in."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, ast.If):
            s.body = restructure_returns(s.body)
            s.orelse = restructure_returns(s.orelse)
            rest = stmts[i + 1:]
            t_body, t_else = _terminates(s.body), _terminates(s.orelse)
            if rest and (t_body or t_else):
                if not t_body:
                    s.body = restructure_returns(s.body + rest)
                elif not t_else:
                    s.orelse = restructure_returns(s.orelse + rest)
                out.append(s)
                return out  # `rest` moved into a branch (or unreachable)
        elif isinstance(s, ast.With):
            s.body = restructure_returns(s.body)
        out.append(s)
        if isinstance(s, (ast.Return, ast.Raise)):
            return out
    return out


def has_inner_return(body):
    """True when a return sits inside an if/with of the function's own body."""
    return any(_contains(s.body + getattr(s, "orelse", []), ast.Return)
               for s in body if isinstance(s, (ast.If, ast.With)))


def single_exit(body):
    """Turns tail returns into assignments of the return value and ends the function
    with one `return`."""
    body = _tail_assign(body)
    body.append(ast.Return(value=_name(RETURN_VALUE)))
    return body


def _tail_assign(stmts):
    stmts = list(stmts)
    last = stmts[-1] if stmts else None
    if isinstance(last, ast.Return):
        value = last.value if last.value is not None else ast.Constant(None)
        stmts[-1] = ast.copy_location(_assign(RETURN_VALUE, value), last)
    elif isinstance(last, ast.If):
        last.body = _tail_assign(last.body)
        last.orelse = _tail_assign(last.orelse)
    elif isinstance(last, ast.With):
        last.body = _tail_assign(last.body)
    elif not isinstance(last, ast.Raise):
        stmts.append(_assign(RETURN_VALUE, ast.Constant(None)))
    return stmts
