"""skiff.summary: a table of a network's layers with their input and output shapes and
parameter counts, found by running the network once on ones of the given shapes.

    skiff.summary(net, (1, 1, 28, 28))
    # -> {'total_params': 31498, 'trainable_params': 31498}, after printing the table
"""
import numbers

import numpy as np

from .._C import Tensor
from ..framework.arguments import ArgumentError, ArgumentTypeError
from ..framework.tensor_params import ANY, accepts
from ..nn import Layer
from ..tensor.creation import ones
from ..nn import LayerDict, LayerList, ParameterList, Sequential
from ..autograd import no_grad

__all__ = ["summary"]


def _is_shape(value):
    return isinstance(value, (list, tuple)) and all(
        v is None or isinstance(v, numbers.Integral) for v in value)


def _input_shapes(input_size):
    """A list of shapes from a shape, an InputSpec, or a list of either."""
    if hasattr(input_size, "shape") and not isinstance(input_size, Tensor):
        return [list(input_size.shape)]
    if _is_shape(input_size):
        return [list(input_size)]
    if isinstance(input_size, (list, tuple)):
        shapes = []
        for item in input_size:
            shapes.extend(_input_shapes(item))
        return shapes
    raise TypeError(f"summary: input_size must be a shape, an InputSpec or a list of them, "
                    f"got {input_size!r}")


def _make_inputs(input_size, dtypes):
    shapes = _input_shapes(input_size)
    if dtypes is None:
        dtypes = ["float32"] * len(shapes)
    elif not isinstance(dtypes, (list, tuple)):
        dtypes = [dtypes] * len(shapes)
    if len(dtypes) != len(shapes):
        raise ValueError(f"summary: {len(shapes)} input shapes but {len(dtypes)} dtypes")
    fixed = [[1 if d is None or d < 0 else int(d) for d in s] for s in shapes]
    return [ones(s, dtype=d) for s, d in zip(fixed, dtypes)]


def _shapes_of(value):
    """[shape] of a Tensor, or a list of them for a list / tuple of outputs."""
    if isinstance(value, Tensor) or hasattr(value, "shape"):
        return list(value.shape)
    if isinstance(value, (list, tuple)):
        return [_shapes_of(v) for v in value]
    return []


def _numel(shape):
    if shape and isinstance(shape[0], list):
        return sum(_numel(s) for s in shape)
    return int(np.prod(shape, dtype=np.int64)) if shape else 0


def _own_state(layer):
    """(parameter or persistable buffer, trainable) held by ``layer`` itself: what a row
    counts (Paddle keeps batch-norm statistics as non-trainable parameters)."""
    held = [(p, getattr(p, "trainable", True) and not p.stop_gradient)
            for p in getattr(layer, "_parameters", {}).values() if p is not None]
    skip = getattr(layer, "_non_persistable_buffer_names_set", set())
    held += [(b, False) for k, b in getattr(layer, "_buffers", {}).items()
             if b is not None and k not in skip]
    if not hasattr(layer, "_parameters"):
        held = [(p, not p.stop_gradient) for p in layer.parameters()]
    return held


def _watched_layers(network):
    """Every layer but the containers, and the network itself only when it has no
    sublayers."""
    containers = (Sequential, LayerList, LayerDict, ParameterList)
    everything = list(network.sublayers()) if hasattr(network, "sublayers") else []
    return [layer for layer in everything if not isinstance(layer, containers)] or [network]


def _row_name(layer, counts):
    """'Linear-3' for the layer named linear_2 (a count per type otherwise)."""
    kind = type(layer).__name__
    full_name = getattr(layer, "full_name", None)
    suffix = full_name().rsplit("_", 1)[-1] if callable(full_name) else ""
    if suffix.isdigit():
        return f"{kind}-{int(suffix) + 1}"
    counts[kind] = counts.get(kind, 0) + 1
    return f"{kind}-{counts[kind]}"


class _Recorder:
    """Attaches forward post-hooks (or wraps forward where a layer has no hooks) and keeps
    one row per layer, in the order the layers first finish, with their last shapes."""

    def __init__(self, layers):
        self.rows, self._undo, self._counts = {}, [], {}
        for layer in layers:
            self._attach(layer)

    def _record(self, layer, inputs, output):
        row = self.rows.get(id(layer))
        if row is None:
            state = _own_state(layer)
            row = self.rows[id(layer)] = {
                "name": _row_name(layer, self._counts),
                "params": sum(_numel(list(t.shape)) for t, _ in state),
                "trainable": sum(_numel(list(t.shape)) for t, flag in state if flag)}
        row["input"] = [_shapes_of(x) for x in inputs if hasattr(x, "shape")]
        row["output"] = _shapes_of(output)

    def _attach(self, layer):
        register = getattr(layer, "register_forward_post_hook", None)
        if callable(register):
            handle = register(lambda lyr, inputs, output: self._record(lyr, inputs, output))
            self._undo.append(handle.remove)
            return
        forward = layer.forward

        def watched(*args, **kwargs):
            output = forward(*args, **kwargs)
            self._record(layer, args, output)
            return output

        layer.forward = watched
        self._undo.append(lambda: layer.__dict__.pop("forward", None))

    def detach(self):
        for undo in self._undo:
            undo()


def _table(rows, input_numel):
    """The printed table (Paddle's layout: columns at least 15, 20, 20 and 15 wide, widened
    to their longest cell, values centred; rules at least 75 wide), and the totals."""
    heads = ("Layer (type)", "Input Shape", "Output Shape", "Param #")
    cells = [(r["name"], str(r["input"]), str(r["output"]), f"{r['params']:,}") for r in rows]
    widths = [max([w] + [len(c[i]) for c in cells]) for i, w in enumerate((15, 20, 20, 15))]
    widths[3] = max([widths[3]] + [len(str(r["params"])) for r in rows])
    width = max(75, sum(widths) + 5)
    line = lambda values: " ".join(f"{v:^{w}}" for v, w in zip(values, widths))  # noqa: E731
    total = np.int64(sum(r["params"] for r in rows))
    trainable = np.int64(sum(r["trainable"] for r in rows))
    output_numel = sum(_numel(r["output"]) for r in rows)
    mb = 4.0 / (1024 ** 2)  # bytes of float32 values, in MB
    out = ["-" * width, line(heads), "=" * width] + [line(c) for c in cells]
    out += ["=" * width, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
            f"Non-trainable params: {total - trainable:,}", "-" * width,
            f"Input size (MB): {input_numel * mb:.2f}",
            f"Forward/backward pass size (MB): {2 * output_numel * mb:.2f}",
            f"Params size (MB): {total * mb:.2f}",
            f"Estimated Total Size (MB): {(input_numel + 2 * output_numel + total) * mb:.2f}",
            "-" * width, ""]
    return "\n".join(out), total, trainable


def _given_tensors(input):
    """The Tensors of ``input`` (a Tensor, or a list / tuple / dict of them), in order."""
    if isinstance(input, dict):
        values = list(input.values())
    elif isinstance(input, (list, tuple)):
        values = list(input)
    else:
        values = [input]
    for v in values:
        if not hasattr(v, "shape"):
            raise ArgumentTypeError(f"summary: input must be a Tensor or a list, tuple or "
                                    f"dict of Tensors, got an item {type(v).__name__}")
    return values


@accepts(input=ANY)  # a Tensor, or a list or dict of them
def summary(net, input_size=None, dtypes=None, input=None):
    """Prints ``net``'s layers (type, input and output shapes, parameters) after one
    forward pass on ones shaped ``input_size`` (None / -1 dims become 1; one argument per
    shape), or on ``input`` (a Tensor, list or dict, passed to forward as one argument);
    returns {'total_params': n, 'trainable_params': m} (numpy int64s, as Paddle's). As in
    Paddle, a row counts the parameters and persistable buffers its layer holds itself."""
    if not isinstance(net, Layer):
        raise ArgumentTypeError(f"summary: net must be a Layer, got {type(net).__name__}")
    if input is None and input_size is None:
        raise ArgumentError("summary: give input_size or input")
    if input is None:
        args = _make_inputs(input_size, dtypes)
        input_numel = sum(_numel(list(x.shape)) for x in args)
    else:
        args = [input]
        given = _given_tensors(input)
        input_numel = sum(_numel(list(x.shape)) for x in given) if input_size is None else \
            sum(_numel([1 if d is None or d < 0 else int(d) for d in shape])
                for shape in _input_shapes(input_size))
    recorder = _Recorder(_watched_layers(net))
    was_training = getattr(net, "training", False)
    net.eval()
    try:
        with no_grad():
            net(*args)
    finally:
        recorder.detach()
        if was_training:
            net.train()
    text, total, trainable = _table(list(recorder.rows.values()), input_numel)
    print(text)
    return {"total_params": total, "trainable_params": trainable}
