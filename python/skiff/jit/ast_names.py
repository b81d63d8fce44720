"""Name analysis over Python ASTs for the to_static transform: which names a piece of
code assigns (or mutates in place), which it reads, and which it reads before
assigning them (so a loop must carry them from one step to the next)."""
import ast

# Methods that change a container in place: `xs.append(v)` assigns `xs` for our purposes.
MUTATING_METHODS = frozenset(("append", "extend", "insert", "pop", "remove", "clear",
                              "reverse", "sort", "update", "add", "setdefault", "popitem",
                              "discard"))

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
           ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _walk_same_scope(node):
    """Nodes under ``node`` without entering nested functions, classes or comprehensions
    (their own names are local to them); ``node`` itself is included."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        for child in ast.iter_child_nodes(n):
            if isinstance(child, _SCOPES):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    yield child  # its name is bound here; defaults/decorators are read here
                continue
            stack.append(child)


def _target_names(target, out):
    if isinstance(target, ast.Name):
        out.add(target.id)
    elif isinstance(target, (ast.Tuple, ast.List)):
        for elt in target.elts:
            _target_names(elt, out)
    elif isinstance(target, ast.Starred):
        _target_names(target.value, out)
    elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        out.add(target.value.id)  # x[i] = v changes x


def assigned_names(nodes):
    """Names bound or changed in place by the statements (or expressions) ``nodes``."""
    out = set()
    for root in nodes:
        for n in _walk_same_scope(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for alias in n.names:
                    out.add((alias.asname or alias.name).split(".")[0])
            elif isinstance(n, ast.ExceptHandler) and n.name:
                out.add(n.name)
            elif isinstance(n, ast.Subscript) and isinstance(n.ctx, (ast.Store, ast.Del)):
                _target_names(n, out)
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr in MUTATING_METHODS and isinstance(n.func.value, ast.Name)):
                out.add(n.func.value.id)
    return out


def loaded_names(nodes):
    """Every name read anywhere under ``nodes``, nested functions included."""
    out = set()
    for root in nodes:
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out.add(n.id)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                out.add(n.target.id)
    return out


def attribute_stores(nodes):
    """(code, line) of each change to an object other than a local name under ``nodes``
    (same scope): ``obj.attr = ...``, ``obj.attr[i] = ...``, ``obj.items.append(...)``."""
    out = []
    for root in nodes:
        for n in _walk_same_scope(root):
            if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
                out.append((ast.unparse(n), n.lineno))
            elif isinstance(n, ast.Subscript) and isinstance(n.ctx, ast.Store) and \
                    not isinstance(n.value, ast.Name):
                out.append((ast.unparse(n), n.lineno))
            elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                  and n.func.attr in MUTATING_METHODS
                  and isinstance(n.func.value, (ast.Attribute, ast.Subscript))):
                out.append((ast.unparse(n.func), n.lineno))
    return out


def exposed_reads(stmts, defined=None):
    """Names the statements may read before assigning them on some path (their value
    from before the statements matters)."""
    defined = set(defined or ())
    exposed = set()
    _exposed_block(stmts, defined, exposed)
    return exposed


def block_effects(stmts):
    """(names read before assigned, names assigned on every path) of the statements."""
    defined, exposed = set(), set()
    _exposed_block(stmts, defined, exposed)
    return exposed, defined


def _exposed_block(stmts, defined, exposed):
    for s in stmts:
        _exposed_stmt(s, defined, exposed)


def _reads(node, defined, exposed):
    exposed.update(loaded_names([node]) - defined)


def _exposed_stmt(s, defined, exposed):
    if isinstance(s, ast.If):
        _reads(s.test, defined, exposed)
        d_body, d_else = set(defined), set(defined)
        _exposed_block(s.body, d_body, exposed)
        _exposed_block(s.orelse, d_else, exposed)
        defined |= d_body & d_else
    elif isinstance(s, ast.While):
        _reads(s.test, defined, exposed)
        _exposed_block(s.body, set(defined), exposed)
        _exposed_block(s.orelse, set(defined), exposed)
    elif isinstance(s, ast.For):
        _reads(s.iter, defined, exposed)
        inner = set(defined) | assigned_names([s.target])
        _exposed_block(s.body, inner, exposed)
        _exposed_block(s.orelse, set(defined), exposed)
    elif isinstance(s, ast.With):
        for item in s.items:
            _reads(item.context_expr, defined, exposed)
            if item.optional_vars is not None:
                defined |= assigned_names([item.optional_vars])
        _exposed_block(s.body, defined, exposed)
    elif isinstance(s, (ast.Assign, ast.AnnAssign)):
        if s.value is not None:
            _reads(s.value, defined, exposed)
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        for t in targets:  # subscripts and attributes read their base
            if not isinstance(t, ast.Name):
                _reads(t, defined, exposed)
        defined |= assigned_names(targets)
    elif isinstance(s, ast.AugAssign):
        _reads(s, defined, exposed)
        defined |= assigned_names([s.target])
    else:  # conservative: every read counts, then every binding
        _reads(s, defined, exposed)
        defined |= assigned_names([s])
