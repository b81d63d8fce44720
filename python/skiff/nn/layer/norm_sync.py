"""paddle.nn.SyncBatchNorm: batch norm whose statistics span every process of a data
parallel job. skiff trains in one process, where it normalises exactly as BatchNorm."""
from ...autograd import no_grad
from .norm import _BatchNormBase

__all__ = ["SyncBatchNorm"]

_LAYOUTS = {"NC": "NCHW", "NCL": "NCHW", "NCHW": "NCHW", "NCDHW": "NCHW",
            "NLC": "NLC", "NHWC": "NHWC", "NDHWC": "NDHWC"}


class SyncBatchNorm(_BatchNormBase):
    """Batch norm of [N, C, ...] inputs (2 to 5 dims) over the batch of this process."""

    def __init__(self, num_features, momentum=0.9, epsilon=1e-05, weight_attr=None,
                 bias_attr=None, data_format="NCHW", name=None):
        if data_format not in _LAYOUTS:
            raise ValueError(f"SyncBatchNorm: data_format must be one of "
                             f"{sorted(_LAYOUTS)}, got {data_format!r}")
        super().__init__(num_features, momentum, epsilon, weight_attr, bias_attr, data_format,
                         None, name)
        self._weight_attr, self._bias_attr = weight_attr, bias_attr

    def forward(self, x):
        layout = _LAYOUTS[self._data_format]
        if layout != "NCHW":  # channels last: the layout name must match the rank
            layout = {3: "NLC", 4: "NHWC", 5: "NDHWC"}.get(len(x.shape), layout)
        saved, self._data_format = self._data_format, layout
        try:
            return super().forward(x)
        finally:
            self._data_format = saved

    @staticmethod
    def _converts(layer):
        """Whether convert_sync_batchnorm replaces ``layer``."""
        return isinstance(layer, _BatchNormBase) and not isinstance(layer, SyncBatchNorm)

    @staticmethod
    def _format_of(layer):
        """The data_format of the SyncBatchNorm replacing ``layer``."""
        return layer._data_format if layer._data_format in _LAYOUTS else "NCHW"

    @classmethod
    def convert_sync_batchnorm(cls, layer):
        """``layer`` with every batch norm layer in it (itself included) replaced by a
        SyncBatchNorm sharing its parameters and running statistics."""
        out = layer
        if cls._converts(layer):
            out = cls(layer._num_features, layer._momentum, layer._epsilon,
                      False if layer.weight is None else None,
                      False if layer.bias is None else None, cls._format_of(layer),
                      layer._name)
            with no_grad():
                if layer.weight is not None:
                    out.weight = layer.weight
                if layer.bias is not None:
                    out.bias = layer.bias
            out._mean, out._variance = layer._mean, layer._variance
            out.training = layer.training
        for name, sub in list(layer.named_children()):
            out.add_sublayer(name, cls.convert_sync_batchnorm(sub))
        return out


