"""ResNet, ResNeXt and Wide ResNet (Paddle's paddle.vision.models.resnet)."""
from ... import nn
from ...framework import arguments
from ...tensor import flatten
from .pretrained import refuse_pretrained

__all__ = ["BasicBlock", "BottleneckBlock", "ResNet", "resnet18", "resnet34", "resnet50",
           "resnet101", "resnet152", "resnext50_32x4d", "resnext50_64x4d",
           "resnext101_32x4d", "resnext101_64x4d", "resnext152_32x4d", "resnext152_64x4d",
           "wide_resnet50_2", "wide_resnet101_2"]


def _conv(cin, cout, k, stride=1, padding=0, groups=1, dilation=1):
    return nn.Conv2D(cin, cout, k, stride=stride, padding=padding, dilation=dilation,
                     groups=groups, bias_attr=False)


class BasicBlock(nn.Layer):
    """Two 3x3 conv-norm stages (the first with ``stride``) plus the shortcut (the input,
    or ``downsample`` of it), then ReLU. Output channels: planes (expansion 1)."""

    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        if dilation > 1:
            raise NotImplementedError("BasicBlock: dilation > 1 is not supported")
        self.conv1 = _conv(inplanes, planes, 3, stride, 1)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = _conv(planes, planes, 3, 1, 1)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(out + shortcut)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped, strided, dilated) and 1x1 expand conv-norm stages plus the
    shortcut, then ReLU. Inner width int(planes * base_width / 64) * groups; output
    channels planes * 4."""

    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64,
                 dilation=1, norm_layer=None):
        super().__init__()
        norm_layer = nn.BatchNorm2D if norm_layer is None else norm_layer
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = _conv(inplanes, width, 1)
        self.bn1 = norm_layer(width)
        self.conv2 = _conv(width, width, 3, stride, dilation, groups, dilation)
        self.bn2 = norm_layer(width)
        self.conv3 = _conv(width, planes * self.expansion, 1)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        shortcut = x if self.downsample is None else self.downsample(x)
        return self.relu(out + shortcut)


# Blocks per stage for each depth.
_STAGES = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3],
           152: [3, 8, 36, 3]}


class ResNet(nn.Layer):
    """ResNet of ``block`` (BasicBlock or BottleneckBlock) at ``depth`` (18, 34, 50, 101,
    152): a 7x7 stem, four stages ``layer1``..``layer4``, average pool (with_pool) and
    ``fc`` (num_classes > 0). ``width`` and ``groups`` make the ResNeXt and wide forms."""

    def __init__(self, block, depth=50, width=64, num_classes=1000, with_pool=True,
                 groups=1):
        super().__init__()
        if depth not in _STAGES:
            raise arguments.ArgumentError(
                f"ResNet: depth must be one of {sorted(_STAGES)}, got {depth!r}")
        self.groups = arguments.count("ResNet", "groups", groups, low=1)
        self.base_width = arguments.count("ResNet", "width", width, low=1)
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = _conv(3, self.inplanes, 7, 2, 3)
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        blocks = _STAGES[depth]
        self.layer1 = self._make_layer(block, 64, blocks[0])
        self.layer2 = self._make_layer(block, 128, blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 256, blocks[2], stride=2)
        self.layer4 = self._make_layer(block, 512, blocks[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
        """A Sequential of ``blocks`` blocks of ``planes``, the first with ``stride`` (and a
        conv-norm downsample when the shape changes)."""
        norm_layer = self._norm_layer
        previous_dilation = self.dilation
        if dilate:
            self.dilation *= stride
            stride = 1
        out_channels = planes * block.expansion
        downsample = None
        if stride != 1 or self.inplanes != out_channels:
            downsample = nn.Sequential(_conv(self.inplanes, out_channels, 1, stride),
                                       norm_layer(out_channels))
        layers = [block(self.inplanes, planes, stride, downsample, self.groups,
                        self.base_width, previous_dilation, norm_layer)]
        self.inplanes = out_channels
        layers += [block(self.inplanes, planes, groups=self.groups,
                         base_width=self.base_width, norm_layer=norm_layer)
                   for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.fc(flatten(x, 1))
        return x


def _resnet(arch, block, depth, pretrained, kwargs, **fixed):
    refuse_pretrained(arch, pretrained)
    kwargs.update(fixed)
    return ResNet(block, depth, **kwargs)


def resnet18(pretrained=False, **kwargs):
    """ResNet-18 (BasicBlock); kwargs as ResNet's."""
    return _resnet("resnet18", BasicBlock, 18, pretrained, kwargs)


def resnet34(pretrained=False, **kwargs):
    """ResNet-34 (BasicBlock); kwargs as ResNet's."""
    return _resnet("resnet34", BasicBlock, 34, pretrained, kwargs)


def resnet50(pretrained=False, **kwargs):
    """ResNet-50 (BottleneckBlock); kwargs as ResNet's."""
    return _resnet("resnet50", BottleneckBlock, 50, pretrained, kwargs)


def resnet101(pretrained=False, **kwargs):
    """ResNet-101 (BottleneckBlock); kwargs as ResNet's."""
    return _resnet("resnet101", BottleneckBlock, 101, pretrained, kwargs)


def resnet152(pretrained=False, **kwargs):
    """ResNet-152 (BottleneckBlock); kwargs as ResNet's."""
    return _resnet("resnet152", BottleneckBlock, 152, pretrained, kwargs)


def resnext50_32x4d(pretrained=False, **kwargs):
    """ResNeXt-50 with 32 groups of width 4."""
    return _resnet("resnext50_32x4d", BottleneckBlock, 50, pretrained, kwargs,
                   groups=32, width=4)


def resnext50_64x4d(pretrained=False, **kwargs):
    """ResNeXt-50 with 64 groups of width 4."""
    return _resnet("resnext50_64x4d", BottleneckBlock, 50, pretrained, kwargs,
                   groups=64, width=4)


def resnext101_32x4d(pretrained=False, **kwargs):
    """ResNeXt-101 with 32 groups of width 4."""
    return _resnet("resnext101_32x4d", BottleneckBlock, 101, pretrained, kwargs,
                   groups=32, width=4)


def resnext101_64x4d(pretrained=False, **kwargs):
    """ResNeXt-101 with 64 groups of width 4."""
    return _resnet("resnext101_64x4d", BottleneckBlock, 101, pretrained, kwargs,
                   groups=64, width=4)


def resnext152_32x4d(pretrained=False, **kwargs):
    """ResNeXt-152 with 32 groups of width 4."""
    return _resnet("resnext152_32x4d", BottleneckBlock, 152, pretrained, kwargs,
                   groups=32, width=4)


def resnext152_64x4d(pretrained=False, **kwargs):
    """ResNeXt-152 with 64 groups of width 4."""
    return _resnet("resnext152_64x4d", BottleneckBlock, 152, pretrained, kwargs,
                   groups=64, width=4)


def wide_resnet50_2(pretrained=False, **kwargs):
    """Wide ResNet-50-2: ResNet-50 with bottlenecks twice as wide (width 128)."""
    return _resnet("wide_resnet50_2", BottleneckBlock, 50, pretrained, kwargs, width=128)


def wide_resnet101_2(pretrained=False, **kwargs):
    """Wide ResNet-101-2: ResNet-101 with bottlenecks twice as wide (width 128)."""
    return _resnet("wide_resnet101_2", BottleneckBlock, 101, pretrained, kwargs, width=128)
