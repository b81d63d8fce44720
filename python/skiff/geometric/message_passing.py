"""Message passing over a graph's edges (paddle.geometric.send_u_recv, send_ue_recv,
send_uv): edge e carries a message from node src_index[e] (combined with an edge feature
or the destination's feature), reduced into node dst_index[e]."""
from ..framework.arguments import ArgumentError, ArgumentTypeError, dtype_name_of, is_tensor
from ..tensor import gather, reshape
from .scatter_reduce import REDUCE_OPS, check_in_range, check_index, check_values, reduce_rows

__all__ = ["send_u_recv", "send_ue_recv", "send_uv"]

MESSAGE_OPS = ("add", "sub", "mul", "div")


def _edges(fn, x, src_index, dst_index):
    src = check_index(fn, "src_index", src_index)
    dst = check_index(fn, "dst_index", dst_index)
    if dtype_name_of(src_index) != dtype_name_of(dst_index):
        raise ArgumentTypeError(f"{fn}: src_index and dst_index must have one dtype, got "
                                f"{dtype_name_of(src_index)} and {dtype_name_of(dst_index)}")
    if src.shape[0] != dst.shape[0]:
        raise ArgumentError(f"{fn}: src_index and dst_index must have one entry per edge, "
                            f"got {src.shape[0]} and {dst.shape[0]}")
    check_in_range(fn, "src_index", src, int(x.shape[0]))
    return src, dst


def _out_rows(fn, x, dst, out_size):
    """The output's rows: out_size when given and positive, else x's rows."""
    if out_size is None:
        n = int(x.shape[0])
    else:
        if is_tensor(out_size):
            if int(out_size.size) != 1:
                raise ArgumentError(f"{fn}: out_size must hold one value, got shape "
                                    f"{list(out_size.shape)}")
            out_size = out_size.reshape([-1])[0].item()
        if isinstance(out_size, bool) or not isinstance(out_size, int):
            raise ArgumentTypeError(f"{fn}: out_size must be an int or a Tensor, got "
                                    f"{type(out_size).__name__}")
        n = out_size if out_size > 0 else int(x.shape[0])
    check_in_range(fn, "dst_index", dst, n)
    return n


def _reduce_op(fn, reduce_op):
    if reduce_op not in REDUCE_OPS:
        raise ArgumentError(f"{fn}: reduce_op must be one of {list(REDUCE_OPS)}, got "
                            f"{reduce_op!r}")


def _combine(fn, a, b, message_op):
    """a op b for the message ops; b of fewer dims gets trailing 1-dims (per-row values)."""
    if message_op not in MESSAGE_OPS:
        raise ArgumentError(f"{fn}: message_op must be one of {list(MESSAGE_OPS)}, got "
                            f"{message_op!r}")
    if dtype_name_of(a) != dtype_name_of(b):
        raise ArgumentTypeError(f"{fn}: x and y must have one dtype, got {dtype_name_of(a)} "
                                f"and {dtype_name_of(b)}")
    while len(b.shape) < len(a.shape):
        b = reshape(b, list(b.shape) + [1])
    while len(a.shape) < len(b.shape):
        a = reshape(a, list(a.shape) + [1])
    try:
        if message_op == "add":
            return a + b
        if message_op == "sub":
            return a - b
        if message_op == "mul":
            return a * b
        return a / b
    except ValueError as err:
        raise ArgumentError(f"{fn}: the features of x {list(a.shape[1:])} and y "
                            f"{list(b.shape[1:])} do not broadcast") from err


def send_u_recv(x, src_index, dst_index, reduce_op="sum", out_size=None, name=None):
    """Reduces (sum, mean, max, min) x[src_index[e]] into row dst_index[e] of a zero output
    of out_size rows (x's rows when out_size is None or <= 0)."""
    fn = "send_u_recv"
    check_values(fn, "x", x)
    _reduce_op(fn, reduce_op)
    src, dst = _edges(fn, x, src_index, dst_index)
    n = _out_rows(fn, x, dst, out_size)
    return reduce_rows(gather(x, src, axis=0), dst, n, reduce_op)


def send_ue_recv(x, y, src_index, dst_index, message_op="add", reduce_op="sum",
                 out_size=None, name=None):
    """Reduces the messages x[src_index[e]] (op) y[e] into row dst_index[e] (message_op:
    add, sub, mul, div; reduce_op: sum, mean, max, min)."""
    fn = "send_ue_recv"
    check_values(fn, "x", x)
    check_values(fn, "y", y)
    _reduce_op(fn, reduce_op)
    src, dst = _edges(fn, x, src_index, dst_index)
    if int(y.shape[0]) != int(src.shape[0]):
        raise ArgumentError(f"{fn}: y must have one row per edge ({src.shape[0]}), got "
                            f"shape {list(y.shape)}")
    n = _out_rows(fn, x, dst, out_size)
    return reduce_rows(_combine(fn, gather(x, src, axis=0), y, message_op), dst, n, reduce_op)


def send_uv(x, y, src_index, dst_index, message_op="add", name=None):
    """The per-edge messages x[src_index[e]] (op) y[dst_index[e]] (add, sub, mul, div)."""
    fn = "send_uv"
    check_values(fn, "x", x)
    check_values(fn, "y", y)
    src, dst = _edges(fn, x, src_index, dst_index)
    check_in_range(fn, "dst_index", dst, int(y.shape[0]))
    return _combine(fn, gather(x, src, axis=0), gather(y, dst, axis=0), message_op)
