"""A skiff program file (``.skmodel``) as the JSON the board's program view draws:
blocks with their parent, variables and ops; each op's slots, attributes, sub-blocks
(the body of ``while``, the branch of ``conditional_block``) and whether it belongs to
the backward pass.

    view = program_json("logs/programs/net.skmodel")
    view["blocks"][0]["ops"][0]   # {"type", "inputs", "outputs", "attrs", "sub_block", "grad"}
"""
import math

from .. import _C

__all__ = ["program_json", "program_to_json", "is_grad_op"]

_GRAD_MARK = "@GRAD"


def is_grad_op(op_type, output_names):
    """True for an op of the backward pass: a ``*_grad`` op, or an op whose outputs are
    all gradient variables (the seed ``fill_any_like`` and the copies and sums
    ``append_backward`` adds)."""
    if op_type.endswith("_grad"):
        return True
    named = [n for n in output_names if n]
    return bool(named) and all(_GRAD_MARK in n for n in named)


def _plain(value):
    """An attribute value as JSON data (non-finite floats as their names)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def _op_json(op, grad_block):
    sub_blocks = [int(b) for b in op.sub_blocks]
    outputs = {slot: list(names) for slot, names in op.outputs}
    return {
        "type": op.type,
        "inputs": {slot: list(names) for slot, names in op.inputs},
        "outputs": outputs,
        "attrs": {name: _plain(op.attr(name)) for name in op.attr_names},
        "sub_block": sub_blocks[0] if sub_blocks else None,
        "sub_blocks": sub_blocks,
        "grad": grad_block or is_grad_op(op.type, op.output_names),
    }


def _var_json(var):
    return {"dtype": var.dtype, "shape": list(var.shape), "persistable": bool(var.persistable),
            "kind": var.kind, "stop_gradient": bool(var.stop_gradient)}


def program_to_json(desc):
    """The JSON form of a skiff._C.Program: {"blocks": [{"idx", "parent", "vars", "ops"}],
    "feeds", "fetches"}. Ops of a block run by a grad op (a while_grad's body) are grad ops."""
    blocks = []
    grad_blocks = set()
    for b in range(desc.num_blocks):
        ops = []
        for i in range(desc.num_ops(b)):
            op = _op_json(desc.op(b, i), b in grad_blocks)
            if op["grad"]:
                grad_blocks.update(op["sub_blocks"])
            ops.append(op)
        variables = {name: _var_json(desc.var(b, name)) for name in desc.var_names(b)}
        blocks.append({"idx": b, "parent": int(desc.parent_idx(b)), "vars": variables,
                       "ops": ops})
    return {"blocks": blocks, "feeds": list(desc.feed_names),
            "fetches": list(desc.fetch_names)}


def program_json(path):
    """The JSON form of the program in the .skmodel file at ``path``; raises skiff.Error
    for a file that is not a readable program."""
    return program_to_json(_C.load_program(path))
