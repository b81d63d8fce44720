"""AlexNet (Paddle's paddle.vision.models.alexnet)."""
import math

from ... import nn
from ...nn import functional as F
from ...nn.initializer import Uniform
from ...tensor import flatten
from .pretrained import refuse_pretrained

__all__ = ["AlexNet", "alexnet"]


def _uniform_attr(stdv):
    """A ParamAttr drawing from U(-stdv, stdv)."""
    return nn.ParamAttr(initializer=Uniform(-stdv, stdv))


def _stdv(fan_in):
    return 1.0 / math.sqrt(fan_in)


def _conv(cin, cout, k, stride, padding):
    stdv = _stdv(cin * k * k)
    return nn.Conv2D(cin, cout, k, stride=stride, padding=padding,
                     weight_attr=_uniform_attr(stdv), bias_attr=_uniform_attr(stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D (``_conv``, weight and bias from U(-stdv, stdv)), ReLU when act is "relu",
    then a 3x3 stride-2 max pool."""

    def __init__(self, input_channels, output_channels, filter_size, stride, padding, stdv,
                 groups=1, act=None):
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, stride=stride,
                               padding=padding, groups=groups, weight_attr=_uniform_attr(stdv),
                               bias_attr=_uniform_attr(stdv))
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs):
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet: five convs (``_conv1``..``_conv5``) then, when num_classes > 0, three
    Linear layers ``_fc6``..``_fc8`` with dropout, for [N, 3, 224, 224] inputs."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, _stdv(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, _stdv(64 * 5 * 5), act="relu")
        self._conv3 = _conv(192, 384, 3, 1, 1)
        self._conv4 = _conv(384, 256, 3, 1, 1)
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, _stdv(256 * 3 * 3), act="relu")
        if num_classes > 0:
            stdv = _stdv(256 * 6 * 6)  # (all three Linear layers, as Paddle's)
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(256 * 6 * 6, 4096, weight_attr=_uniform_attr(stdv),
                                  bias_attr=_uniform_attr(stdv))
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(4096, 4096, weight_attr=_uniform_attr(stdv),
                                  bias_attr=_uniform_attr(stdv))
            self._fc8 = nn.Linear(4096, num_classes, weight_attr=_uniform_attr(stdv),
                                  bias_attr=_uniform_attr(stdv))

    def forward(self, inputs):
        x = self._conv2(self._conv1(inputs))
        x = F.relu(self._conv4(F.relu(self._conv3(x))))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = self._drop1(flatten(x, start_axis=1, stop_axis=-1))
            x = self._drop2(F.relu(self._fc6(x)))
            x = self._fc8(F.relu(self._fc7(x)))
        return x


def alexnet(pretrained=False, **kwargs):
    """AlexNet(**kwargs); pretrained weights are not available in skiff."""
    refuse_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
