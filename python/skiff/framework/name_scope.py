"""paddle.static.name_scope: ops built inside ``with name_scope("block1"):`` record the
scope path ("/block1/", nested "/block1/inner/", a repeated name "/block1_1/") as their
``op_namescope`` attribute, read through Operator.attr like Paddle's."""
import contextlib

__all__ = ["name_scope"]

NAMESCOPE_ATTR = "op_namescope"


class _Scope:
    def __init__(self, path):
        self.path = path
        self.children = {}

    def child(self, prefix):
        taken = self.children.setdefault(prefix, [])
        name = prefix if not taken else f"{prefix}_{len(taken)}"
        scope = _Scope(f"{self.path}{name}/")
        taken.append(scope)
        return scope


_root = _Scope("/")
_stack = [_root]


@contextlib.contextmanager
def name_scope(prefix=None):
    """Within it, appended ops carry the scope path ``prefix`` nested in the enclosing
    scopes (a name used again in the same parent gets a suffix _1, _2, ...)."""
    if prefix is not None and not isinstance(prefix, str):
        raise TypeError(f"name_scope: prefix must be a str or None, got "
                        f"{type(prefix).__name__}")
    _stack.append(_stack[-1].child(prefix or "name_scope"))
    try:
        yield
    finally:
        _stack.pop()


def current_path():
    return _stack[-1].path


def record(program, block_idx, op_index):
    """Notes the current scope path for the op just appended (kept by the program,
    keyed by the op's first output, which survives clone and pruning)."""
    path = current_path()
    if path == "/":
        return
    op = program.desc.op(block_idx, op_index)
    outputs = list(op.output_names)
    if outputs:
        program._op_namescopes[(block_idx, outputs[0])] = path


def lookup(program, block_idx, op_desc):
    outputs = list(op_desc.output_names)
    if not outputs:
        return "/"
    return program._op_namescopes.get((block_idx, outputs[0]), "/")
