"""MobileNetV1 (Paddle's paddle.vision.models.mobilenetv1)."""
from ... import nn
from ...framework import arguments
from ...tensor import flatten
from .conv_norm import ConvNormActivation
from .pretrained import refuse_pretrained

__all__ = ["MobileNetV1", "mobilenet_v1"]


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise conv-norm-relu (``_depthwise_conv``) then a 1x1 pointwise one
    (``_pointwise_conv``); channel counts and groups are scaled by ``scale``."""

    def __init__(self, in_channels, out_channels1, out_channels2, num_groups, stride, scale):
        super().__init__()
        mid = int(out_channels1 * scale)
        self._depthwise_conv = ConvNormActivation(in_channels, mid, kernel_size=3,
                                                  stride=stride, padding=1,
                                                  groups=int(num_groups * scale))
        self._pointwise_conv = ConvNormActivation(mid, int(out_channels2 * scale),
                                                  kernel_size=1, stride=1, padding=0)

    def forward(self, x):
        return self._pointwise_conv(self._depthwise_conv(x))


# (name, in, depthwise out, pointwise out, stride), before scaling.
_BLOCKS = [("conv2_1", 32, 32, 64, 1), ("conv2_2", 64, 64, 128, 2),
           ("conv3_1", 128, 128, 128, 1), ("conv3_2", 128, 128, 256, 2),
           ("conv4_1", 256, 256, 256, 1), ("conv4_2", 256, 256, 512, 2)] + \
          [(f"conv5_{i}", 512, 512, 512, 1) for i in range(1, 6)] + \
          [("conv5_6", 512, 512, 1024, 2), ("conv6", 1024, 1024, 1024, 1)]


class MobileNetV1(nn.Layer):
    """MobileNetV1: a strided 3x3 conv then 13 depthwise-separable blocks; channels times
    ``scale``; average pool (with_pool) and ``fc`` (num_classes > 0)."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        self.scale = arguments.real("MobileNetV1", "scale", scale, above=0)
        self.num_classes = num_classes
        self.with_pool = with_pool
        scale = self.scale
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2,
                                        padding=1)
        self.dwsl = []
        for name, cin, mid, out, stride in _BLOCKS:
            block = DepthwiseSeparable(int(cin * scale), mid, out, mid, stride, scale)
            self.dwsl.append(self.add_sublayer(name, block))
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x):
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def mobilenet_v1(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV1(scale=scale, **kwargs); pretrained weights are not available in skiff."""
    refuse_pretrained("mobilenet_v1", pretrained)
    return MobileNetV1(scale=scale, **kwargs)
