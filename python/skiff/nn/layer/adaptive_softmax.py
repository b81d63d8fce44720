"""AdaptiveLogSoftmaxWithLoss (paddle.nn.AdaptiveLogSoftmaxWithLoss): the head and the
clusters' projections as parameters, with log_prob and predict over all classes."""
from ... import _C_ops
from ...framework.dtype import get_default_dtype
from .. import functional as F
from ...tensor.linalg import matmul
from ...tensor.manipulation import concat, slice
from ...tensor.math import add, cast
from .container import LayerList, ParameterList
from .layers import Layer

__all__ = ["AdaptiveLogSoftmaxWithLoss"]


class AdaptiveLogSoftmaxWithLoss(Layer):
    """cutoffs: increasing ints in [1, n_classes - 1]; classes below cutoffs[0] sit in the
    head, the rest in clusters [cutoffs[i], cutoffs[i + 1]) whose projections have
    in_features // div_value^(i + 1) hidden units. The tail weights are registered as
    tail_weights.<cluster>.<0|1> so that parameters() includes them."""

    def __init__(self, in_features, n_classes, cutoffs, weight_attr=None, bias_attr=None,
                 div_value=4.0, head_bias=False, name=None):
        super().__init__(dtype=get_default_dtype())
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError(f"AdaptiveLogSoftmaxWithLoss: cutoffs must be unique increasing "
                             f"ints in [1, n_classes - 1 = {n_classes - 1}], got {cutoffs}")
        self.in_features, self.n_classes = int(in_features), int(n_classes)
        self.cutoffs = [int(c) for c in cutoffs] + [self.n_classes]
        self.div_value, self.is_head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head_weight = self.create_parameter([self.in_features, self.head_size],
                                                 weight_attr)
        self.head_bias = self.create_parameter([self.head_size], bias_attr, is_bias=True) \
            if head_bias else None
        projections = []
        for i in range(self.n_clusters):
            hidden = int(self.in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            projections.append(ParameterList([
                self.create_parameter([self.in_features, hidden], weight_attr),
                self.create_parameter([hidden, size], weight_attr)]))
        self.tail_weights = LayerList(projections)

    def forward(self, input, label):
        return F.adaptive_log_softmax_with_loss(input, label, self.head_weight,
                                                self._tails(), self.cutoffs, self.head_bias)

    def _tails(self):
        return [list(pair) for pair in self.tail_weights]

    def log_prob(self, input):
        """The log-probability of every class: [N, n_classes]."""
        head = F.linear(input, self.head_weight, self.head_bias)
        head_log_probs = _C_ops.log_softmax(head, axis=1)
        parts = [slice(head_log_probs, [1], [0], [self.shortlist_size])]
        for i, (first, second) in enumerate(self._tails()):
            cluster = _C_ops.log_softmax(matmul(matmul(input, first), second), axis=1)
            column = self.shortlist_size + i
            parts.append(add(cluster, slice(head_log_probs, [1], [column], [column + 1])))
        return concat(parts, 1)

    def predict(self, input):
        """The most likely class of each row, as float32 ids (Paddle's dtype): [N]."""
        best = _C_ops.argmax(self.log_prob(input), axis=1)
        return cast(best, "float32")
