"""skiff.summary: a table of a network's layers with their input and output shapes and
parameter counts, found by running the network once on ones of the given shapes.

    skiff.summary(net, (1, 1, 28, 28))
    # -> {'total_params': 31498, 'trainable_params': 31498}, after printing the table
"""
import numbers

import numpy as np

from .._C import Tensor

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
    from ..tensor.creation import ones
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


def _own_params(layer):
    try:
        return list(layer.parameters(include_sublayers=False))
    except TypeError:
        return list(layer.parameters())


def _children(layer):
    children = getattr(layer, "children", None)
    return list(children()) if callable(children) else []


def _watched_layers(network):
    """Layers worth a row: leaves and layers holding parameters of their own."""
    everything = list(network.sublayers()) if hasattr(network, "sublayers") else []
    rows = [layer for layer in everything if not _children(layer) or _own_params(layer)]
    return rows or [network]


class _Recorder:
    """Attaches to layers (forward post-hooks where the Layer has them, else a wrapped
    forward) and records a row per call."""

    def __init__(self, layers):
        self.rows, self._undo, self._counts = [], [], {}
        for layer in layers:
            self._attach(layer)

    def _record(self, layer, inputs, output):
        kind = type(layer).__name__
        self._counts[kind] = self._counts.get(kind, 0) + 1
        params = _own_params(layer)
        self.rows.append({
            "name": f"{kind}-{self._counts[kind]}",
            "input": [_shapes_of(x) for x in inputs if hasattr(x, "shape")],
            "output": _shapes_of(output),
            "params": sum(_numel(list(p.shape)) for p in params),
        })

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


def _table(rows, total, trainable, input_numel, output_numel):
    heads = ("Layer (type)", "Input Shape", "Output Shape", "Param #")
    cells = [(r["name"], str(r["input"]), str(r["output"]), f"{r['params']:,}") for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) + 4 for i, h in enumerate(heads)]
    width = sum(widths)
    line = lambda values: "".join(v.center(w) for v, w in zip(values, widths))  # noqa: E731
    mb = 4.0 / (1024 ** 2)  # bytes of float32 values, in MB
    out = ["-" * width, line(heads), "=" * width] + [line(c) for c in cells]
    out += ["=" * width, f"Total params: {total:,}", f"Trainable params: {trainable:,}",
            f"Non-trainable params: {total - trainable:,}", "-" * width,
            f"Input size (MB): {input_numel * mb:.2f}",
            f"Forward/backward pass size (MB): {2 * output_numel * mb:.2f}",
            f"Params size (MB): {total * mb:.2f}",
            f"Estimated Total Size (MB): {(input_numel + 2 * output_numel + total) * mb:.2f}",
            "-" * width]
    return "\n".join(out)


def summary(net, input_size=None, dtypes=None, input=None):
    """Prints ``net``'s layers (type, input and output shapes, parameters) after one
    forward pass on ones shaped ``input_size`` (None / -1 dims become 1) or on ``input``;
    returns {'total_params': n, 'trainable_params': m}."""
    from ..autograd import no_grad
    if input is None and input_size is None:
        raise ValueError("summary: give input_size or input")
    inputs = _make_inputs(input_size, dtypes) if input is None else (
        list(input) if isinstance(input, (list, tuple)) else [input])
    recorder = _Recorder(_watched_layers(net))
    was_training = getattr(net, "training", False)
    net.eval()
    try:
        with no_grad():
            net(*inputs)
    finally:
        recorder.detach()
        if was_training:
            net.train()
    unique = {id(p): p for p in net.parameters()}.values()
    total = sum(_numel(list(p.shape)) for p in unique)
    trainable = sum(_numel(list(p.shape)) for p in unique if not p.stop_gradient)
    input_numel = sum(_numel(list(x.shape)) for x in inputs)
    output_numel = sum(_numel(r["output"]) for r in recorder.rows)
    print(_table(recorder.rows, total, trainable, input_numel, output_numel))
    return {"total_params": total, "trainable_params": trainable}
