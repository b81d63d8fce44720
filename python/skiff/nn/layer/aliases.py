"""The PyTorch-style names Paddle 3.3 gives to some layers: each is the same class."""
from .container import LayerDict, LayerList
from .conv import Conv1D, Conv2D
from .layers import Layer
from .pooling import AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveMaxPool1D, \
    AdaptiveMaxPool2D
from .pooling_lp import LPPool1D, LPPool2D, MaxUnPool1D, MaxUnPool2D

__all__ = ["Conv1d", "Conv2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
           "Module", "ModuleList", "ModuleDict"]

Conv1d, Conv2d = Conv1D, Conv2D
AdaptiveAvgPool1d, AdaptiveAvgPool2d = AdaptiveAvgPool1D, AdaptiveAvgPool2D
AdaptiveMaxPool1d, AdaptiveMaxPool2d = AdaptiveMaxPool1D, AdaptiveMaxPool2D
LPPool1d, LPPool2d = LPPool1D, LPPool2D
MaxUnpool1d, MaxUnpool2d = MaxUnPool1D, MaxUnPool2D
Module, ModuleList, ModuleDict = Layer, LayerList, LayerDict
