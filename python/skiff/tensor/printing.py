"""How a Tensor prints: skiff.set_printoptions (Paddle's precision, threshold, edgeitems,
sci_mode and linewidth) and the text of a Tensor's values under them."""
import numpy as np

__all__ = ["set_printoptions"]

_options = {"precision": 8, "threshold": 1000, "edgeitems": 3, "sci_mode": False,
            "linewidth": 80}


def set_printoptions(precision=None, threshold=None, edgeitems=None, sci_mode=None,
                     linewidth=None):
    """Sets how Tensors print: ``precision`` digits after the point, summarised (the
    first and last ``edgeitems`` of each dim) above ``threshold`` elements, scientific
    notation when ``sci_mode``, lines of ``linewidth`` characters. None keeps a setting."""
    given = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems,
             "linewidth": linewidth}
    for key, value in given.items():
        if value is not None:
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise TypeError(f"set_printoptions: {key} must be a non-negative int, got "
                                f"{value!r}")
            _options[key] = value
    if sci_mode is not None:
        _options["sci_mode"] = bool(sci_mode)


def values_text(arr, prefix):
    """The values of ``arr`` as a Tensor's repr shows them."""
    o = _options
    formatter = None
    if o["sci_mode"] and arr.dtype.kind == "f":
        formatter = {"float_kind": lambda v: np.format_float_scientific(
            v, precision=o["precision"], unique=False)}
    return np.array2string(arr, prefix=prefix, precision=o["precision"],
                           threshold=o["threshold"], edgeitems=o["edgeitems"],
                           max_line_width=o["linewidth"], suppress_small=not o["sci_mode"],
                           formatter=formatter)
