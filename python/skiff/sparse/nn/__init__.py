"""skiff.sparse.nn (Paddle's paddle.sparse.nn): layers over sparse tensors."""
from . import functional
from .conv import Conv2D, Conv3D, MaxPool3D, SubmConv2D, SubmConv3D
from .layers import BatchNorm, LeakyReLU, ReLU, ReLU6, Softmax, SyncBatchNorm

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm", "Conv2D",
           "Conv3D", "SubmConv2D", "SubmConv3D", "MaxPool3D"]
