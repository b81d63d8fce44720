"""SGD: param -= lr * grad (sparse gradients update only their rows)."""
from .optimizer import Optimizer

__all__ = ["SGD"]


class SGD(Optimizer):
    """Plain stochastic gradient descent (Paddle's paddle.optimizer.SGD)."""

    def __init__(self, learning_rate=0.001, parameters=None, weight_decay=None, grad_clip=None,
                 multi_precision=False, name=None):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)

    def _append_optimize_op(self, param, grad, lr, group):
        self._run_update("sgd", [param, grad, lr], [param], {})
