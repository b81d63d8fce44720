"""Hierarchical sigmoid loss (paddle.nn.functional.hsigmoid_loss): binary logistic losses
along a class's path in a tree of classifiers, composed of gather, reduce_sum, clip and
softplus ops. The default tree's paths are computed from the labels with integer ops."""
from ... import _C_ops
from ...framework.arguments import dtype_name_of
from ...tensor.manipulation import stack
from ...tensor.math import add, cast, multiply, scale, subtract

__all__ = ["hsigmoid_loss"]


def _int_const(like, value):
    return _C_ops.fill_any_like(like, value=float(value), dtype="")


def _default_paths(label, num_classes):
    """The complete binary tree over num_classes leaves (Paddle's default): leaf c is heap
    node v = c + num_classes; step j visits node (v >> (j + 1)) - 1 with target bit
    (v >> j) & 1 while v >> (j + 1) >= 1. Returns (node ids, bits, valid), each [N, L]."""
    length = (num_classes - 1).bit_length()
    v = scale(label, 1.0, float(num_classes))
    nodes, bits, valid = [], [], []
    for j in range(length):
        above = _C_ops.elementwise_floordiv(v, _int_const(v, 2 ** (j + 1)))
        nodes.append(scale(above, 1.0, -1.0))
        here = _C_ops.elementwise_floordiv(v, _int_const(v, 2 ** j))
        bits.append(_C_ops.elementwise_mod(here, _int_const(v, 2)))
        valid.append(_C_ops.greater_equal(above, _int_const(v, 1)))
    return stack(nodes, 1), stack(bits, 1), stack(valid, 1)


def hsigmoid_loss(input, label, num_classes, weight, bias=None, path_table=None,
                  path_code=None, is_sparse=False, name=None):
    """Sum over the nodes of each sample's path of softplus(z) - bit * z, z = weight[node]
    · input + bias[node] clipped to [-40, 40]; [N, 1]. Without path_table/path_code the
    default tree over num_classes (weight [num_classes - 1, D]); with them, path_table
    [N, L] holds node ids (negative: past the path's end) and path_code [N, L] the bits.
    As in Paddle, every unused path slot adds log(2)."""
    if (path_table is None) != (path_code is None):
        raise ValueError("hsigmoid_loss: path_table and path_code must be given together")
    if path_table is None and int(num_classes) < 2:
        raise ValueError(f"hsigmoid_loss: num_classes must be at least 2 with the default "
                         f"tree, got {num_classes}")
    if len(input.shape) != 2:
        raise ValueError(f"hsigmoid_loss: input must be [N, D], got shape {list(input.shape)}")
    if len(weight.shape) != 2 or (weight.shape[1] != input.shape[1] and input.shape[1] >= 0):
        raise ValueError(f"hsigmoid_loss: weight must be [num_nodes, {input.shape[1]}], got "
                         f"shape {list(weight.shape)}")
    dtype = dtype_name_of(input)
    if path_table is None:
        nodes, bits, valid = _default_paths(
            _C_ops.reshape(label, shape=[-1]), int(num_classes)
        )
        # A label of num_classes or more (Paddle does not refuse one) reaches nodes past
        # the tree's num_classes - 1: they count as unused slots, as Paddle's kernel does.
        inside = _C_ops.less_than(nodes, _int_const(nodes, int(num_classes) - 1))
        valid = _C_ops.logical_and(valid, inside)
        nodes = _C_ops.clip(nodes, min=0.0, max=float(int(num_classes) - 2))
    else:
        nodes, bits = path_table, path_code
        valid = _C_ops.greater_equal(nodes, _int_const(nodes, 0))
        nodes = _C_ops.clip(nodes, min=0.0)
    length = int(nodes.shape[1])
    flat = _C_ops.reshape(nodes, shape=[-1])
    rows = _C_ops.reshape(_C_ops.gather(weight, flat), shape=[-1, length, int(weight.shape[1])])
    z = _C_ops.reduce_sum(multiply(rows, _C_ops.unsqueeze(input, axes=[1])), dim=[2],
                          keep_dim=False, reduce_all=False)
    if bias is not None:
        z = add(
            z,
            _C_ops.reshape(_C_ops.gather(_C_ops.reshape(bias, shape=[-1]), flat),
                           shape=[-1, length]),
        )
    z = multiply(z, cast(valid, dtype))
    z = _C_ops.clip(z, min=-40.0, max=40.0)
    terms = subtract(
        _C_ops.softplus(z, threshold=100.0), multiply(cast(bits, dtype), z)
    )
    return _C_ops.reduce_sum(terms, dim=[1], keep_dim=True, reduce_all=False)
