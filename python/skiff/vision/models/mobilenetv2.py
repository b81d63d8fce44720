"""MobileNetV2 (Paddle's paddle.vision.models.mobilenetv2)."""
from ... import nn
from ...framework import arguments
from ...tensor import flatten
from .conv_norm import ConvNormActivation, make_divisible
from .pretrained import refuse_pretrained

__all__ = ["MobileNetV2", "mobilenet_v2"]


class InvertedResidual(nn.Layer):
    """A 1x1 expansion to round(inp * expand_ratio) channels (skipped at ratio 1), a 3x3
    depthwise conv and a linear 1x1 projection to ``oup`` (``conv``), plus the input when
    stride is 1 and the channel count stays."""

    def __init__(self, inp, oup, stride, expand_ratio, norm_layer=nn.BatchNorm2D):
        super().__init__()
        if stride not in (1, 2):
            raise arguments.ArgumentError(
                f"InvertedResidual: stride must be 1 or 2, got {stride!r}")
        self.stride = stride
        hidden = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(ConvNormActivation(inp, hidden, kernel_size=1,
                                             norm_layer=norm_layer,
                                             activation_layer=nn.ReLU6))
        layers += [ConvNormActivation(hidden, hidden, stride=stride, groups=hidden,
                                      norm_layer=norm_layer, activation_layer=nn.ReLU6),
                   nn.Conv2D(hidden, oup, 1, 1, 0, bias_attr=False),
                   norm_layer(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        out = self.conv(x)
        return x + out if self.use_res_connect else out


# (expansion t, channels c, repeats n, first stride s) per stage.
_STAGES = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
           (6, 160, 3, 2), (6, 320, 1, 1)]


class MobileNetV2(nn.Layer):
    """MobileNetV2: ``features`` (a strided conv, 17 inverted residual blocks and a 1x1 conv
    to 1280 * max(1, scale) channels), average pool (with_pool) and a dropout-Linear
    ``classifier`` (num_classes > 0); channel counts rounded to multiples of 8."""

    def __init__(self, scale=1.0, num_classes=1000, with_pool=True):
        super().__init__()
        scale = arguments.real("MobileNetV2", "scale", scale, above=0)
        self.num_classes = num_classes
        self.with_pool = with_pool
        channels = make_divisible(32 * scale, 8)
        self.last_channel = make_divisible(1280 * max(1.0, scale), 8)
        features = [ConvNormActivation(3, channels, stride=2, activation_layer=nn.ReLU6)]
        for t, c, n, s in _STAGES:
            out = make_divisible(c * scale, 8)
            for i in range(n):
                features.append(InvertedResidual(channels, out, s if i == 0 else 1, t))
                channels = out
        features.append(ConvNormActivation(channels, self.last_channel, kernel_size=1,
                                           activation_layer=nn.ReLU6))
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(nn.Dropout(0.2),
                                            nn.Linear(self.last_channel, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def mobilenet_v2(pretrained=False, scale=1.0, **kwargs):
    """MobileNetV2(scale=scale, **kwargs); pretrained weights are not available in skiff."""
    refuse_pretrained("mobilenet_v2", pretrained)
    return MobileNetV2(scale=scale, **kwargs)
