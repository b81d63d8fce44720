"""VGG 11/13/16/19 (Paddle's paddle.vision.models.vgg)."""
from ... import nn
from ...framework import arguments
from ...tensor import flatten
from .pretrained import refuse_pretrained

__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]

# Conv widths per configuration; "M" is a 2x2 max pool.
cfgs = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M",
          512, 512, 512, "M"],
    "E": [64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M",
          512, 512, 512, 512, "M"],
}


def make_layers(cfg, batch_norm=False):
    """The VGG feature extractor for ``cfg`` (channel counts and "M" for max pools) on
    3-channel input: 3x3 convs, each followed by BatchNorm2D (batch_norm) and ReLU."""
    layers, channels = [], 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
            continue
        v = arguments.count("make_layers", "cfg entry", v, low=1)
        layers.append(nn.Conv2D(channels, v, kernel_size=3, padding=1))
        if batch_norm:
            layers.append(nn.BatchNorm2D(v))
        layers.append(nn.ReLU())
        channels = v
    return nn.Sequential(*layers)


class VGG(nn.Layer):
    """VGG: ``features`` (see make_layers, ending in 512 channels), a 7x7 adaptive average
    pool (with_pool) and a three-Linear ``classifier`` (num_classes > 0)."""

    def __init__(self, features, num_classes=1000, with_pool=True):
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, 4096), nn.ReLU(), nn.Dropout(),
                nn.Linear(4096, num_classes))

    def forward(self, x):
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


def _vgg(arch, cfg, pretrained, batch_norm, kwargs):
    refuse_pretrained(arch, pretrained)
    return VGG(make_layers(cfgs[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained=False, batch_norm=False, **kwargs):
    """VGG-11 (configuration A), with BatchNorm2D after each conv when batch_norm."""
    return _vgg("vgg11", "A", pretrained, batch_norm, kwargs)


def vgg13(pretrained=False, batch_norm=False, **kwargs):
    """VGG-13 (configuration B), with BatchNorm2D after each conv when batch_norm."""
    return _vgg("vgg13", "B", pretrained, batch_norm, kwargs)


def vgg16(pretrained=False, batch_norm=False, **kwargs):
    """VGG-16 (configuration D), with BatchNorm2D after each conv when batch_norm."""
    return _vgg("vgg16", "D", pretrained, batch_norm, kwargs)


def vgg19(pretrained=False, batch_norm=False, **kwargs):
    """VGG-19 (configuration E), with BatchNorm2D after each conv when batch_norm."""
    return _vgg("vgg19", "E", pretrained, batch_norm, kwargs)
