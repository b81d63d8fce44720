"""HSigmoidLoss (paddle.nn.HSigmoidLoss): the hierarchical sigmoid loss with its node
classifiers as parameters."""
from ...framework.dtype import get_default_dtype
from .. import functional as F
from .layers import Layer

__all__ = ["HSigmoidLoss"]


class HSigmoidLoss(Layer):
    """weight [num_classes - 1, feature_size] and bias [num_classes - 1, 1] (num_classes rows
    each with is_custom, for a tree given by path_table/path_code in forward)."""

    def __init__(self, feature_size, num_classes, weight_attr=None, bias_attr=None,
                 is_custom=False, is_sparse=False, name=None):
        super().__init__(dtype=get_default_dtype())
        if num_classes < 2 and not is_custom:
            raise ValueError(f"HSigmoidLoss: num_classes must be at least 2 with the default "
                             f"tree, got {num_classes}")
        self._feature_size, self._num_classes = int(feature_size), int(num_classes)
        self._is_custom, self._is_sparse, self._name = is_custom, is_sparse, name
        rows = self._num_classes if is_custom else self._num_classes - 1
        self.weight = self.create_parameter([rows, self._feature_size], weight_attr)
        self.bias = self.create_parameter([rows, 1], bias_attr, is_bias=True)

    def forward(self, input, label, path_table=None, path_code=None):
        return F.hsigmoid_loss(input, label, self._num_classes, self.weight, self.bias,
                               path_table=path_table, path_code=path_code,
                               is_sparse=self._is_sparse)
