"""skiff.board.watch: one line that logs an optimizer's learning rate and gradient norm
from a plain training loop.

    writer = skiff.board.LogWriter("runs/exp1")
    skiff.board.watch(opt, writer, every=10)
    for x, y in loader:
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()            # every 10th step logs train/lr and train/grad_norm
        opt.clear_grad()

It rides on the optimizer's step post-hook, so it sees every eager step() and
minimize(), whoever calls them (skiff.Model.fit, GradScaler.step, a hand-written loop).
"""
from .. import _C_ops
import math

from ..autograd import no_grad

__all__ = ["watch", "Watch", "global_grad_norm"]


def global_grad_norm(parameters):
    """The L2 norm of all the parameters' gradients together (sparse ones count as their
    dense form), or None when none has a gradient. Reads the device once per dtype."""
    by_dtype = {}
    with no_grad():
        for p in parameters:
            grad = getattr(p, "grad", None)
            if grad is not None:
                by_dtype.setdefault(grad._dtype_name, []).append(
                    _C_ops.squared_l2_norm(grad))
        if not by_dtype:
            return None
        total = 0.0
        for squares in by_dtype.values():
            total += float(squares[0] if len(squares) == 1 else _C_ops.sum(squares))
    return math.sqrt(total)


class Watch:
    """Logs ``<prefix>/lr`` (and ``<prefix>/grad_norm``) to ``writer`` after every
    ``every``-th optimizer step; ``step`` counts the steps seen (the first is step 1,
    the step the records carry). ``remove()`` stops it."""

    def __init__(self, optimizer, writer, every=1, prefix="train", grad_norm=True):
        if int(every) < 1:
            raise ValueError(f"watch: every must be a positive number of steps, got {every}")
        if not callable(getattr(optimizer, "register_step_post_hook", None)):
            raise TypeError(f"watch needs a skiff optimizer, got {type(optimizer).__name__}")
        self.writer = writer
        self.every = int(every)
        self.grad_norm = grad_norm
        self.step = 0
        self._lr_tag = f"{prefix}/lr"
        self._norm_tag = f"{prefix}/grad_norm"
        self._handle = optimizer.register_step_post_hook(self._after_step)

    def _after_step(self, optimizer, args, kwargs):
        self.step += 1
        if self.step % self.every:
            return
        self.writer.add_scalar(self._lr_tag, float(optimizer.get_lr()), self.step)
        if self.grad_norm:
            norm = global_grad_norm(optimizer._parameter_list or [])
            if norm is not None:
                self.writer.add_scalar(self._norm_tag, norm, self.step)

    def remove(self):
        """Unregisters the hook: later steps log nothing."""
        self._handle.remove()


def watch(optimizer, writer, every=1, prefix="train", grad_norm=True):
    """Logs ``optimizer``'s learning rate and its parameters' global gradient norm to the
    LogWriter ``writer`` every ``every`` steps, as tags '<prefix>/lr' and
    '<prefix>/grad_norm'; returns the Watch (call remove() to stop)."""
    return Watch(optimizer, writer, every, prefix, grad_norm)
