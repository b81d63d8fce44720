"""SqueezeNet 1.0 and 1.1 (Paddle's paddle.vision.models.squeezenet)."""
from ... import nn
from ...framework import arguments
from ...nn import functional as F
from ...tensor import concat, squeeze
from .pretrained import refuse_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class MakeFireConv(nn.Layer):
    """Conv2D (``_conv``) then ReLU."""

    def __init__(self, input_channels, output_channels, filter_size, padding=0):
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size,
                               padding=padding)

    def forward(self, x):
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze (``_conv``) feeding a 1x1 and a 3x3 expansion
    (``_conv_path1``, ``_conv_path2``) whose outputs are concatenated."""

    def __init__(self, input_channels, squeeze_channels, expand1x1_channels,
                 expand3x3_channels):
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs):
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


# Fire modules (input, squeeze, expand 1x1, expand 3x3), the same in both versions.
_FIRES = [(96, 16, 64, 64), (128, 16, 64, 64), (128, 32, 128, 128), (256, 32, 128, 128),
          (256, 48, 192, 192), (384, 48, 192, 192), (384, 64, 256, 256),
          (512, 64, 256, 256)]
# Fire modules after which a max pool follows (1-based), per version.
_POOLS_AFTER = {"1.0": (3, 7), "1.1": (2, 4)}


class SqueezeNet(nn.Layer):
    """SqueezeNet ``version`` "1.0" (7x7 stem of 96) or "1.1" (3x3 stem of 64), eight fire
    modules ``_conv1``..``_conv8``, a 1x1 conv classifier ``_conv9`` (num_classes > 0)
    and ReLU plus global average pool to [N, C] (with_pool)."""

    def __init__(self, version, num_classes=1000, with_pool=True):
        super().__init__()
        self.version = arguments.choice("SqueezeNet", "version", version, ("1.0", "1.1"))
        self.num_classes = num_classes
        self.with_pool = with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
            fires = _FIRES
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
            fires = [(64,) + _FIRES[0][1:]] + _FIRES[1:]
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, fire in enumerate(fires):
            setattr(self, f"_conv{i + 1}", MakeFire(*fire))
        if num_classes > 0:
            self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        if with_pool:
            self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs):
        x = self._pool(F.relu(self._conv(inputs)))
        pools_after = _POOLS_AFTER[self.version]
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pools_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained=False, **kwargs):
    """SqueezeNet version 1.0; pretrained weights are not available in skiff."""
    refuse_pretrained("squeezenet1_0", pretrained)
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained=False, **kwargs):
    """SqueezeNet version 1.1; pretrained weights are not available in skiff."""
    refuse_pretrained("squeezenet1_1", pretrained)
    return SqueezeNet("1.1", **kwargs)
