"""ShuffleNetV2 (Paddle's paddle.vision.models.shufflenetv2)."""
from ... import nn
from ...framework import arguments
from ...tensor import concat, flatten, reshape, split, transpose
from .conv_norm import ConvNormActivation
from .pretrained import refuse_pretrained

__all__ = ["ShuffleNetV2", "shufflenet_v2_x0_25", "shufflenet_v2_x0_33",
           "shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5",
           "shufflenet_v2_x2_0", "shufflenet_v2_swish"]


def create_activation_layer(act):
    """The activation layer class for ``act`` ("relu", "swish" or None: none)."""
    if act is None:
        return None
    layers = {"relu": nn.ReLU, "swish": nn.Swish}
    if act not in layers:
        raise arguments.ArgumentError(
            f"ShuffleNetV2: act must be 'relu', 'swish' or None, got {act!r}")
    return layers[act]


def channel_shuffle(x, groups):
    """Interleaves the channels of NCHW ``x`` across ``groups`` groups."""
    n, c, h, w = x.shape[0:4]
    x = reshape(x, [n, groups, c // groups, h, w])
    return reshape(transpose(x, [0, 2, 1, 3, 4]), [n, c, h, w])


def _conv(cin, cout, k, stride, groups, act):
    return ConvNormActivation(cin, cout, kernel_size=k, stride=stride, padding=(k - 1) // 2,
                              groups=groups, activation_layer=act)


class InvertedResidual(nn.Layer):
    """The stride-1 unit: half the channels pass, the other half go 1x1 - depthwise 3x3 -
    1x1; the halves are concatenated and channel-shuffled."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _conv(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _conv(half, half, 3, stride, half, None)
        self._conv_linear = _conv(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        half = inputs.shape[1] // 2
        x1, x2 = split(inputs, num_or_sections=[half, half], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """The downsampling unit: two strided branches (depthwise - 1x1, and 1x1 - depthwise -
    1x1) over the whole input, concatenated and channel-shuffled."""

    def __init__(self, in_channels, out_channels, stride, activation_layer=nn.ReLU):
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _conv(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _conv(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _conv(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _conv(half, half, 3, stride, half, None)
        self._conv_linear_2 = _conv(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs):
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


# Stage output channels (stem, three stages, last conv) per scale.
_CHANNELS = {0.25: [24, 24, 48, 96, 512], 0.33: [24, 32, 64, 128, 512],
             0.5: [24, 48, 96, 192, 1024], 1.0: [24, 116, 232, 464, 1024],
             1.5: [24, 176, 352, 704, 1024], 2.0: [24, 224, 488, 976, 2048]}
_REPEATS = [4, 8, 4]


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 at ``scale`` (0.25, 0.33, 0.5, 1.0, 1.5 or 2.0) with activation ``act``
    ("relu", "swish"): stem conv and max pool, three stages of units named "2_1".."4_4",
    a 1x1 ``_last_conv``, average pool (with_pool) and ``_fc`` (num_classes > 0)."""

    def __init__(self, scale=1.0, act="relu", num_classes=1000, with_pool=True):
        super().__init__()
        if scale not in _CHANNELS:
            raise arguments.ArgumentError(
                f"ShuffleNetV2: scale must be one of {sorted(_CHANNELS)}, got {scale!r}")
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        act_layer = create_activation_layer(act)
        channels = _CHANNELS[scale]
        self._conv1 = _conv(3, channels[0], 3, 2, 1, act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list = []
        for stage, repeats in enumerate(_REPEATS):
            cin, cout = channels[stage], channels[stage + 1]
            for i in range(repeats):
                unit = InvertedResidualDS(cin, cout, 2, act_layer) if i == 0 else \
                    InvertedResidual(cout, cout, 1, act_layer)
                self._block_list.append(self.add_sublayer(f"{stage + 2}_{i + 1}", unit))
        self._last_conv = _conv(channels[-2], channels[-1], 1, 1, 1, act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = channels[-1]
            self._fc = nn.Linear(channels[-1], num_classes)

    def forward(self, inputs):
        x = self._max_pool(self._conv1(inputs))
        for unit in self._block_list:
            x = unit(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, start_axis=1, stop_axis=-1))
        return x


def _shufflenet_v2(arch, pretrained, kwargs, **fixed):
    refuse_pretrained(arch, pretrained)
    kwargs.update(fixed)
    return ShuffleNetV2(**kwargs)


def shufflenet_v2_x0_25(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 0.25."""
    return _shufflenet_v2("shufflenet_v2_x0_25", pretrained, kwargs, scale=0.25)


def shufflenet_v2_x0_33(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 0.33."""
    return _shufflenet_v2("shufflenet_v2_x0_33", pretrained, kwargs, scale=0.33)


def shufflenet_v2_x0_5(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 0.5."""
    return _shufflenet_v2("shufflenet_v2_x0_5", pretrained, kwargs, scale=0.5)


def shufflenet_v2_x1_0(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 1.0."""
    return _shufflenet_v2("shufflenet_v2_x1_0", pretrained, kwargs, scale=1.0)


def shufflenet_v2_x1_5(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 1.5."""
    return _shufflenet_v2("shufflenet_v2_x1_5", pretrained, kwargs, scale=1.5)


def shufflenet_v2_x2_0(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 2.0."""
    return _shufflenet_v2("shufflenet_v2_x2_0", pretrained, kwargs, scale=2.0)


def shufflenet_v2_swish(pretrained=False, **kwargs):
    """ShuffleNetV2 at scale 1.0 with swish activations."""
    return _shufflenet_v2("shufflenet_v2_swish", pretrained, kwargs, scale=1.0, act="swish")
