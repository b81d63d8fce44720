"""paddle.nn.functional.npair_loss: the N-pair metric-learning loss (Sohn, 2016), a soft-
label cross-entropy over anchor-positive similarities plus an L2 penalty on the
embeddings."""
from ...framework.arguments import ArgumentError
from ...tensor import cast, equal, matmul, mean, reshape, sum as reduce_sum
from .activation import log_softmax

__all__ = ["npair_loss"]


def npair_loss(anchor, positive, labels, l2_reg=0.002):
    """anchor, positive [N, D], labels [N]: the targets of row i are the samples sharing
    its label (equally weighted); the loss is the mean over columns j of sum_i
    target[i, j] * CE_i plus l2_reg / 4 * (mean |anchor|^2 + mean |positive|^2)."""
    if len(anchor.shape) != 2 or list(anchor.shape) != list(positive.shape):
        raise ArgumentError(f"npair_loss: anchor and positive must be one [N, D] shape, got "
                            f"{list(anchor.shape)} and {list(positive.shape)}")
    n = int(anchor.shape[0])
    if int(reshape(labels, [-1]).shape[0]) != n:
        raise ArgumentError(f"npair_loss: labels must hold {n} entries, got shape "
                            f"{list(labels.shape)}")
    column = reshape(labels, [n, 1])
    same = cast(equal(column, reshape(labels, [1, n])), anchor.dtype)
    target = same / reduce_sum(same, axis=1, keepdim=True)
    penalty = mean(reduce_sum(anchor * anchor, axis=1)) + \
        mean(reduce_sum(positive * positive, axis=1))
    logp = log_softmax(matmul(anchor, positive, transpose_y=True), axis=1)
    ce = -reduce_sum(target * logp, axis=1, keepdim=True)  # [N, 1]
    return penalty * (0.25 * l2_reg) + mean(reduce_sum(target * ce, axis=0))
