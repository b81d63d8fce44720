"""Gradient clipping (Paddle's paddle.nn.ClipGradBy*): an optimizer built with
``grad_clip=`` calls it on its (parameter, gradient) pairs before the update. The
clipped gradients are new tensors; ``param.grad`` keeps its value. Parameters whose
``need_clip`` is False pass through unclipped and do not count toward a global norm."""
import numbers
from .. import _C_ops

__all__ = ["ClipGradBase", "ClipGradByGlobalNorm", "ClipGradByNorm", "ClipGradByValue"]


def _needs_clip(param, grad):
    return grad is not None and getattr(param, "need_clip", True)


def _is_sparse(grad):
    """True for a selected-rows gradient: an eager Tensor's kind, or a static variable's
    declared kind (its ``type``)."""
    kind = getattr(grad, "_kind", None)
    if kind is None:
        kind = getattr(grad, "type", "dense")
    return kind == "selected_rows"


def _dense(param, grad):
    """A sparse (selected-rows) gradient as the dense tensor it stands for."""
    if not _is_sparse(grad):
        return grad
    zeros = _C_ops.fill_any_like(param, value=0.0, dtype="")
    return _C_ops.sum([zeros, grad])


class ClipGradBase:
    """Maps a list of (param, grad) to a list of (param, clipped grad)."""

    def __call__(self, params_grads):
        return self._clip(list(params_grads))

    def _clip(self, params_grads):
        """Subclasses (ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue) clip here."""
        raise NotImplementedError(f"{type(self).__name__} does not define _clip")


class ClipGradByGlobalNorm(ClipGradBase):
    """Scales every gradient by clip_norm / max(global_norm, clip_norm), global_norm being
    the L2 norm of all the gradients together (sparse ones count as their dense form)."""

    def __init__(self, clip_norm, group_name="default_group", auto_skip_clip=False):
        if isinstance(clip_norm, bool) or not isinstance(clip_norm, numbers.Real) \
                or not clip_norm > 0:
            raise ValueError(f"ClipGradByGlobalNorm: clip_norm must be a positive number, got "
                             f"{clip_norm!r}")
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        self.auto_skip_clip = auto_skip_clip

    def __str__(self):
        return f"Gradient Clip By GlobalNorm, global_norm={self.clip_norm:f}"

    def _clip(self, params_grads):
        chosen = [i for i, (p, g) in enumerate(params_grads) if _needs_clip(p, g)]
        if not chosen:
            return params_grads
        grads = [params_grads[i][1] for i in chosen]
        clipped, _ = _C_ops.clip_by_global_norm(grads, clip_norm=self.clip_norm,
                                                output_counts=[len(grads), 0])
        out = list(params_grads)
        for i, g in zip(chosen, clipped):
            out[i] = (out[i][0], g)
        return out


class ClipGradByNorm(ClipGradBase):
    """Scales each gradient on its own by clip_norm / max(norm(grad), clip_norm)."""

    def __init__(self, clip_norm):
        if clip_norm <= 0:
            raise ValueError(f"ClipGradByNorm: clip_norm must be positive, got {clip_norm}")
        self.clip_norm = float(clip_norm)

    def __str__(self):
        return f"Gradient Clip By Norm, clip_norm={self.clip_norm:f}"

    def _clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if _needs_clip(p, g):
                (g,), _ = _C_ops.clip_by_global_norm([g], clip_norm=self.clip_norm,
                                                     output_counts=[1, 0])
            out.append((p, g))
        return out


class ClipGradByValue(ClipGradBase):
    """Clips every gradient element into [min, max] (min defaults to -max)."""

    def __init__(self, max, min=None):
        max = float(max)
        min = -max if min is None else float(min)
        if min > max:
            raise ValueError(f"ClipGradByValue: min {min} exceeds max {max}")
        self.max, self.min = max, min

    def __str__(self):
        return f"Clip Gradient By Value, min = {self.min:f}, max={self.max:f}"

    def _clip(self, params_grads):
        out = []
        for p, g in params_grads:
            if _needs_clip(p, g):
                g = _C_ops.clip(_dense(p, g), min=self.min, max=self.max)
            out.append((p, g))
        return out
