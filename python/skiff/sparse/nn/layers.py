"""The layers of skiff.sparse.nn that hold no kernel: activations, softmax and batch norm
(BatchNorm normalises the channels of the stored values, [nnz, C], as a BatchNorm1D;
SyncBatchNorm is the same in a single process)."""
from ...framework.arguments import ArgumentError
from ... import nn
from ...nn import BatchNorm1D, Layer
from ...nn import SyncBatchNorm as _DenseSyncBatchNorm
from ..tensor import require_sparse
from . import functional as F

__all__ = ["ReLU", "ReLU6", "LeakyReLU", "Softmax", "BatchNorm", "SyncBatchNorm"]


class ReLU(Layer):
    """max(x, 0) of a sparse tensor's values."""

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu(x)


class ReLU6(Layer):
    """min(max(x, 0), 6) of a sparse tensor's values."""

    def __init__(self, name=None):
        super().__init__()

    def forward(self, x):
        return F.relu6(x)


class LeakyReLU(nn.LeakyReLU):
    """leaky_relu of a sparse tensor's values (the dense layer's arguments and repr)."""

    def forward(self, x):
        return F.leaky_relu(x, self._negative_slope)


class Softmax(nn.Softmax):
    """Softmax over the stored entries of each row of a sparse tensor (the dense layer's
    arguments and repr)."""

    def forward(self, x):
        return F.softmax(x, self._axis)


_CHANNEL_LAST = ("NDHWC", "NHWC")


def _normalise_values(layer, dense_forward, x):
    x = require_sparse(type(layer).__name__, x, formats=("coo",))
    if x.dense_dim() != 1:
        raise ArgumentError(f"{type(layer).__name__}: x must be a COO tensor whose only dense "
                            f"dim is the channels (sparse_dim = ndim - 1), got sparse_dim "
                            f"{x.sparse_dim()} of {len(x.shape)} dims")
    return x._with_values(dense_forward(x._values))


class BatchNorm(BatchNorm1D):
    """Batch norm of a channel-last sparse tensor (NDHWC or NHWC): the statistics of each
    channel over the stored entries."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NDHWC", use_global_stats=None, name=None):
        if data_format not in _CHANNEL_LAST:
            raise ArgumentError(f"BatchNorm: data_format must be 'NDHWC' or 'NHWC', got "
                                f"{data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC",
                         use_global_stats, name)
        self._sparse_format_shown = data_format

    def forward(self, x):
        return _normalise_values(self, super().forward, x)


class SyncBatchNorm(_DenseSyncBatchNorm):
    """BatchNorm whose statistics span the processes of a data-parallel job; one process
    normalises exactly as BatchNorm."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, "NC", name)

    def forward(self, x):
        return _normalise_values(self, super().forward, x)

    @staticmethod
    def _converts(layer):
        """convert_sync_batchnorm (the dense one's) replaces the sparse BatchNorms."""
        return isinstance(layer, BatchNorm)

    @staticmethod
    def _format_of(layer):
        return "NCHW"  # the values [nnz, C] are normalised as NC
