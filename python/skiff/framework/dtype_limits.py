"""The limits of skiff's dtypes (paddle.iinfo, paddle.finfo)."""
import numpy as np

from . import arguments


class iinfo:
    """Limits of an integer dtype: bits, min, max and dtype (its name)."""

    def __init__(self, dtype):
        name = arguments.dtype("iinfo", dtype)
        if name not in ("int8", "uint8", "int16", "int32", "int64"):
            raise arguments.ArgumentTypeError(f"iinfo: {name} is not an integer dtype (skiff "
                                              f"has int8, uint8, int16, int32, int64)")
        info = np.iinfo(name)
        self.bits, self.min, self.max, self.dtype = info.bits, int(info.min), int(info.max), name

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, bits={self.bits}, dtype={self.dtype})"


# bfloat16: 8 exponent bits like float32, 8 significand bits (7 stored).
_BF16 = dict(bits=16, eps=2.0**-7, min=-3.3895313892515355e38, max=3.3895313892515355e38,
             tiny=2.0**-126, resolution=0.01)


class finfo:
    """Limits of a float dtype: bits, min, max, eps, tiny (= smallest_normal), resolution
    and dtype (its name)."""

    def __init__(self, dtype):
        name = arguments.dtype("finfo", dtype)
        if name == "bfloat16":
            v = _BF16
        elif name in ("float32", "float64"):
            info = np.finfo(name)
            v = dict(bits=info.bits, eps=float(info.eps), min=float(info.min),
                     max=float(info.max), tiny=float(info.tiny),
                     resolution=10.0 ** -int(info.precision))
        else:
            raise arguments.ArgumentTypeError(f"finfo: {name} is not a float dtype (skiff "
                                              f"has float32, float64, bfloat16)")
        self.bits, self.eps, self.min, self.max = v["bits"], v["eps"], v["min"], v["max"]
        self.tiny = self.smallest_normal = v["tiny"]
        self.resolution, self.dtype = v["resolution"], name

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min}, max={self.max}, "
                f"eps={self.eps}, tiny={self.tiny}, bits={self.bits}, dtype={self.dtype})")
