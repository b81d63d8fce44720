"""Activations and their gradients between neighbouring pipeline stages, over blocking
point-to-point messages of the pipe group.

A send returns once the peer's matching recv has taken it, so two neighbours must post
their messages in the same order; the schedules in pipeline_parallel.py do. What a stage
sends forward is a tensor or a tuple of tensors; ``TensorMeta`` describes each (shape,
dtype, whether a gradient comes back for it), sent once per batch ahead of the first
micro-batch, so the receiver can allocate its buffers.
"""
from ....framework.dtype import dtype_name
from ....tensor.creation import to_tensor, zeros, zeros_like
from ... import collective

__all__ = ["TensorMeta", "send_meta", "recv_meta", "send_tensors", "recv_tensors",
           "gradients_of", "as_tuple"]

# The dtypes a stage may send, numbered for the header.
_DTYPES = ("float32", "float64", "bfloat16", "int32", "int64", "bool", "int8", "uint8",
           "int16", "complex64", "complex128")


class TensorMeta:
    """The shape and dtype of a tensor sent between stages, and whether it is
    differentiable (a gradient for it comes back in the backward)."""

    def __init__(self, shape, dtype, differentiable):
        self.shape = list(shape)
        self.dtype = dtype
        self.differentiable = bool(differentiable)

    @classmethod
    def of(cls, tensor):
        return cls(tensor.shape, dtype_name(tensor.dtype), not tensor.stop_gradient)

    def __repr__(self):
        return f"TensorMeta({self.shape}, {self.dtype}, differentiable={self.differentiable})"


def as_tuple(value, what):
    """A stage's output (a Tensor or a tuple of Tensors) as a tuple."""
    items = value if isinstance(value, tuple) else (value,)
    for i, t in enumerate(items):
        if not hasattr(t, "stop_gradient"):
            raise TypeError(f"PipelineParallel: {what} must be a Tensor or a tuple of "
                            f"Tensors, got {type(t).__name__} at position {i}")
    return items


def _header(metas):
    values = [len(metas)]
    for m in metas:
        if m.dtype not in _DTYPES:
            raise TypeError(f"PipelineParallel: cannot send a {m.dtype} tensor between stages")
        values += [_DTYPES.index(m.dtype), int(m.differentiable), len(m.shape), *m.shape]
    return values


def send_meta(metas, dst, group):
    """Sends the description of the tensors that follow to global rank ``dst``."""
    values = _header(metas)
    collective.send(to_tensor([len(values)], dtype="int64"), dst, group)
    collective.send(to_tensor(values, dtype="int64"), dst, group)


def recv_meta(src, group):
    """The TensorMetas that global rank ``src`` sent with send_meta."""
    length = zeros([1], dtype="int64")
    collective.recv(length, src, group)
    header = zeros([int(length.numpy()[0])], dtype="int64")
    collective.recv(header, src, group)
    values = [int(v) for v in header.numpy()]
    metas, pos = [], 1
    for _ in range(values[0]):
        dtype, differentiable, ndim = values[pos:pos + 3]
        shape = values[pos + 3:pos + 3 + ndim]
        metas.append(TensorMeta(shape, _DTYPES[dtype], differentiable))
        pos += 3 + ndim
    return metas


def send_tensors(tensors, dst, group):
    """Sends each tensor, in order, to global rank ``dst``."""
    for t in tensors:
        collective.send(t, dst, group)


def recv_tensors(metas, src, group, requires_grad):
    """Fresh tensors filled from global rank ``src``, one per meta; those differentiable
    are leaves that collect their gradient when ``requires_grad``."""
    out = []
    for m in metas:
        t = zeros(m.shape, dtype=m.dtype)
        collective.recv(t, src, group)
        t.stop_gradient = not (requires_grad and m.differentiable)
        out.append(t)
    return out


def gradients_of(tensors):
    """The gradient of each differentiable tensor (zeros where none reached it)."""
    return [t.grad if t.grad is not None else zeros_like(t)
            for t in tensors if not t.stop_gradient]
