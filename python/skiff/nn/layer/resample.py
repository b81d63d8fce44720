"""Resizing and sliding-window layers (paddle.nn.Upsample, UpsamplingNearest2D,
UpsamplingBilinear2D, Unfold, Fold)."""
from ..functional import resample as R
from .layers import Layer

__all__ = ["Upsample", "UpsamplingNearest2D", "UpsamplingBilinear2D", "Unfold", "Fold"]


class Upsample(Layer):
    """Resizes its input with F.interpolate and the arguments given here."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=False,
                 align_mode=0, data_format=None, recompute_scale_factor=None, name=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self.recompute_scale_factor = data_format, recompute_scale_factor

    def forward(self, x):
        return R.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.align_mode, self.data_format, self.recompute_scale_factor)

    def extra_repr(self):
        what = f"size={self.size}" if self.size is not None else \
            f"scale_factor={self.scale_factor}"
        return f"{what}, mode={self.mode}, align_corners={self.align_corners}"


class UpsamplingNearest2D(Upsample):
    """Nearest-neighbour resize of 4-D inputs."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "nearest", False, 0, data_format)


class UpsamplingBilinear2D(Upsample):
    """Bilinear resize of 4-D inputs with aligned corners (Paddle's choice)."""

    def __init__(self, size=None, scale_factor=None, data_format="NCHW", name=None):
        super().__init__(size, scale_factor, "bilinear", True, 0, data_format)


class Unfold(Layer):
    """F.unfold: sliding windows as columns [N, C * kh * kw, L]."""

    def __init__(self, kernel_sizes, dilations=1, paddings=0, strides=1, name=None):
        super().__init__()
        self.kernel_sizes, self.dilations = kernel_sizes, dilations
        self.paddings, self.strides = paddings, strides

    def forward(self, x):
        return R.unfold(x, self.kernel_sizes, self.strides, self.paddings, self.dilations)

    def extra_repr(self):
        return (f"kernel_sizes={self.kernel_sizes}, dilations={self.dilations}, "
                f"paddings={self.paddings}, strides={self.strides}")


class Fold(Layer):
    """F.fold: columns summed back into images of output_sizes."""

    def __init__(self, output_sizes, kernel_sizes, dilations=1, paddings=0, strides=1,
                 name=None):
        super().__init__()
        self.output_sizes, self.kernel_sizes = output_sizes, kernel_sizes
        self.dilations, self.paddings, self.strides = dilations, paddings, strides

    def forward(self, x):
        return R.fold(x, self.output_sizes, self.kernel_sizes, self.strides, self.paddings,
                      self.dilations)

    def extra_repr(self):
        return (f"output_sizes={self.output_sizes}, kernel_sizes={self.kernel_sizes}, "
                f"dilations={self.dilations}, paddings={self.paddings}, strides={self.strides}")
