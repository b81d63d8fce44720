"""DenseNet 121/161/169/201/264 (Paddle's paddle.vision.models.densenet)."""
import math

from ... import nn
from ...framework import arguments
from ...nn.initializer import Uniform
from ...tensor import concat, flatten
from .pretrained import refuse_pretrained

__all__ = ["DenseNet", "densenet121", "densenet161", "densenet169", "densenet201",
           "densenet264"]


def _conv(cin, cout, k, stride, pad, groups=1):
    return nn.Conv2D(cin, cout, k, stride=stride, padding=pad, groups=groups,
                     bias_attr=False)


class BNACConvLayer(nn.Layer):
    """Pre-activation conv: BatchNorm with ReLU (``_batch_norm``), then Conv2D (``_conv``,
    no bias)."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)

    def forward(self, input):
        return self._conv(self._batch_norm(input))


class ConvBNLayer(nn.Layer):
    """Conv2D (``_conv``, no bias), then BatchNorm with activation ``act``."""

    def __init__(self, num_channels, num_filters, filter_size, stride=1, pad=0, groups=1,
                 act="relu"):
        super().__init__()
        self._conv = _conv(num_channels, num_filters, filter_size, stride, pad, groups)
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input):
        return self._batch_norm(self._conv(input))


class DenseLayer(nn.Layer):
    """A 1x1 bottleneck to bn_size * growth_rate channels and a 3x3 conv to growth_rate
    (then dropout), whose output is concatenated after the input."""

    def __init__(self, num_channels, growth_rate, bn_size, dropout):
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, 1, 0)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, 1, 1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input):
        out = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            out = self.dropout_func(out)
        return concat([input, out], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` DenseLayers named "{name}_1".. each adding growth_rate channels."""

    def __init__(self, num_channels, num_layers, bn_size, growth_rate, dropout, name=None):
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func = []
        for i in range(num_layers):
            layer = DenseLayer(num_channels + i * growth_rate, growth_rate, bn_size, dropout)
            self.dense_layer_func.append(self.add_sublayer(f"{name}_{i + 1}", layer))

    def forward(self, input):
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """A pre-activation 1x1 conv to ``num_output_features`` then a 2x2 average pool."""

    def __init__(self, num_channels, num_output_features):
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, 1, 0)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input):
        return self.pool2d_avg(self.conv_ac_func(input))


# (initial features, growth rate, layers per dense block) per depth.
_SPECS = {121: (64, 32, [6, 12, 24, 16]), 161: (96, 48, [6, 12, 36, 24]),
          169: (64, 32, [6, 12, 32, 32]), 201: (64, 32, [6, 12, 48, 32]),
          264: (64, 32, [6, 12, 64, 48])}


class DenseNet(nn.Layer):
    """DenseNet of ``layers`` (121, 161, 169, 201, 264): a 7x7 stem, four dense blocks
    ``db_conv_2``..``db_conv_5`` with halving transitions between, BatchNorm-ReLU, average
    pool (with_pool) and Linear ``out`` (num_classes > 0)."""

    def __init__(self, layers=121, bn_size=4, dropout=0.0, num_classes=1000, with_pool=True):
        super().__init__()
        if layers not in _SPECS:
            raise arguments.ArgumentError(
                f"DenseNet: layers must be one of {sorted(_SPECS)}, got {layers!r}")
        dropout = arguments.real("DenseNet", "dropout", dropout, low=0, high=1)
        self.num_classes = num_classes
        self.with_pool = with_pool
        features, growth_rate, block_config = _SPECS[layers]
        self.block_config = block_config
        self.conv1_func = ConvBNLayer(3, features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list, self.transition_func_list = [], []
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(features, num_layers, bn_size, growth_rate, dropout,
                               name=f"conv{i + 2}")
            self.dense_block_func_list.append(self.add_sublayer(f"db_conv_{i + 2}", block))
            features += num_layers * growth_rate
            if i != len(block_config) - 1:
                transition = TransitionLayer(features, features // 2)
                self.transition_func_list.append(
                    self.add_sublayer(f"tr_conv{i + 2}_blk", transition))
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            bound = 1.0 / math.sqrt(features)
            self.out = nn.Linear(features, num_classes,
                                 weight_attr=nn.ParamAttr(initializer=Uniform(-bound, bound)),
                                 bias_attr=nn.ParamAttr())

    def forward(self, input):
        x = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(flatten(x, start_axis=1, stop_axis=-1))
        return x


def _densenet(arch, layers, pretrained, kwargs):
    refuse_pretrained(arch, pretrained)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained=False, **kwargs):
    """DenseNet-121; kwargs as DenseNet's (but layers)."""
    return _densenet("densenet121", 121, pretrained, kwargs)


def densenet161(pretrained=False, **kwargs):
    """DenseNet-161; kwargs as DenseNet's (but layers)."""
    return _densenet("densenet161", 161, pretrained, kwargs)


def densenet169(pretrained=False, **kwargs):
    """DenseNet-169; kwargs as DenseNet's (but layers)."""
    return _densenet("densenet169", 169, pretrained, kwargs)


def densenet201(pretrained=False, **kwargs):
    """DenseNet-201; kwargs as DenseNet's (but layers)."""
    return _densenet("densenet201", 201, pretrained, kwargs)


def densenet264(pretrained=False, **kwargs):
    """DenseNet-264; kwargs as DenseNet's (but layers)."""
    return _densenet("densenet264", 264, pretrained, kwargs)
