"""paddle.metric.accuracy: top-k accuracy of a batch as a tensor (the accuracy op)."""
from .. import _C_ops

__all__ = ["accuracy"]


def accuracy(input, label, k=1, correct=None, total=None, name=None):
    """The fraction of rows of ``input`` [N, C] whose ``label`` ([N, 1] or [N]) is among
    their k best scores, a float32 scalar; ``correct`` / ``total`` (int32 tensors), when
    given, receive the counts."""
    if int(k) < 1:
        raise ValueError(f"accuracy: k must be positive, got {k}")
    if len(input.shape) != 2:
        raise ValueError(f"accuracy: input must be [N, C], got shape {list(input.shape)}")
    _, indices = _C_ops.top_k(input, k=int(k))
    acc, _, _ = _C_ops.accuracy(None, indices, label, k=int(k), output_counts=[1, 1, 1],
                                out=[None, correct, total])
    return _C_ops.reshape(acc, shape=[])
