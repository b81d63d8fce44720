"""torch.nn.functional-style functions of paddle.compat.nn.functional: PyTorch's
signatures and conventions (``dim``, weights laid out [out_features, in_features], pad
pairs from the last dim backwards) over skiff's ops."""
from ... import _C_ops
from ...framework import arguments
from ...nn import functional as F
from ... import tensor as T

__all__ = ["softmax", "linear", "pad"]


def _legacy_softmax_dim(rank):
    """The dim PyTorch's softmax takes when none is given: 0 for 0-, 1- and 3-D input,
    else 1."""
    return 0 if rank in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None, *, out=None):
    """exp(input) / sum(exp(input)) along ``dim`` (None: PyTorch's implicit choice, 0 for
    0-, 1- and 3-D input, else 1), computed in ``dtype`` when given (input cast first)."""
    arguments.tensor("softmax", "input", input)
    rank = len(input.shape)
    if dim is None:
        dim = _legacy_softmax_dim(rank)
    dim = arguments.axis("softmax", dim, rank if rank else 1, "dim", scalar=True)
    if dtype is not None:
        name = arguments.dtype("softmax", dtype)
        if name not in arguments.FLOAT_DTYPES:
            raise arguments.ArgumentTypeError(f"softmax: dtype must be a floating dtype, got "
                                              f"{name}")
        if name != arguments.dtype_name_of(input):
            input = _C_ops.cast(input, out_dtype=name)
    result = F.softmax(input, axis=dim)
    return result if out is None else T.assign(result, out)



def linear(input, weight, bias=None):
    """input · weightᵀ + bias, with ``weight`` [out_features, in_features] (PyTorch's
    layout; Paddle's F.linear takes it transposed)."""
    arguments.tensor("linear", "input", input)
    arguments.tensor("linear", "weight", weight)
    if len(weight.shape) not in (1, 2):
        raise arguments.ArgumentError(f"linear: weight must be 1-D or 2-D [out_features, "
                                      f"in_features], got shape {list(weight.shape)}")
    out = T.matmul(input, weight, transpose_y=len(weight.shape) == 2)
    return out if bias is None else T.add(out, bias)


def pad(input, pad, mode="constant", value=0.0):
    """input padded by ``pad``: (before, after) pairs for the last dim, then the one before
    it, and so on (PyTorch's order); mode 'constant' (with ``value``) pads any of the dims,
    'reflect', 'replicate' and 'circular' the dims after the first two."""
    arguments.tensor("pad", "input", input)
    pairs = arguments.integers("pad", "pad", pad)
    rank = len(input.shape)
    if len(pairs) % 2 or len(pairs) // 2 > rank:
        raise arguments.ArgumentError(f"pad: pad must hold (before, after) pairs for at most "
                                      f"{rank} dims, got {pairs}")
    if mode == "constant":
        full = [0] * (2 * rank)
        for k in range(len(pairs) // 2):
            d = rank - 1 - k
            full[2 * d], full[2 * d + 1] = pairs[2 * k], pairs[2 * k + 1]
        return F.pad(input, full, mode="constant", value=value)
    arguments.choice("pad", "mode", mode, ("constant", "reflect", "replicate", "circular"))
    spatial = rank - 2
    if spatial not in (1, 2, 3) or len(pairs) != 2 * spatial:
        raise arguments.ArgumentError(f"pad: mode {mode!r} pads the {spatial} dims after the "
                                      f"first two of a 3-D, 4-D or 5-D input, so pad needs "
                                      f"{2 * spatial} entries; got input of shape "
                                      f"{list(input.shape)} and pad {pairs}")
    layout = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[spatial]
    return F.pad(input, pairs, mode=mode, data_format=layout)
