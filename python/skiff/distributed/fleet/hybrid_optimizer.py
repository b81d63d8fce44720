"""The optimizer of a hybrid-parallel layout (Paddle's HybridParallelOptimizer): the inner
optimizer's step, with its gradient clipping by global norm taken over the whole model when
the model is split over model-parallel ranks or pipeline stages.

The global norm of one process sums the squares of every gradient once. Split, a rank holds
slices of the split parameters (summed over the model-parallel group), whole copies of the
replicated ones (the same on every model-parallel rank: counted once) and its stage's
parameters (summed over the pipe group; a weight shared by stages is counted at its first
stage only). Data-parallel copies hold the same averaged gradients and add nothing.
"""
from ... import _C_ops
from ...nn.clip import ClipGradBase, ClipGradByGlobalNorm, _needs_clip
from ...tensor.creation import to_tensor
from .. import collective

__all__ = ["HybridParallelClipGrad", "HybridParallelOptimizer"]


class HybridParallelClipGrad(ClipGradBase):
    """``clip`` (a ClipGradByGlobalNorm) with the global norm of the split model."""

    def __init__(self, clip, hcg):
        self._clip_norm = clip.clip_norm
        self._hcg = hcg

    def __str__(self):
        return f"Gradient Clip By GlobalNorm over the hybrid layout, global_norm={self._clip_norm:f}"

    def _clip(self, params_grads):
        split, whole = 0.0, 0.0
        for p, g in params_grads:
            if not _needs_clip(p, g):
                continue
            if getattr(p, "is_firstly_shared", True) is False:
                continue  # a stage's copy of a weight its first stage counts
            square = float((g.astype("float64") ** 2).sum())
            if getattr(p, "is_distributed", False):
                split += square
            else:
                whole += square
        total = to_tensor([split], dtype="float64")
        collective.all_reduce(total, group=self._hcg.get_model_parallel_group())
        total = total + whole
        collective.all_reduce(total, group=self._hcg.get_pipe_parallel_group())
        norm = float(total.numpy()[0]) ** 0.5
        scale = self._clip_norm / max(norm, self._clip_norm)
        if scale == 1.0:
            return params_grads
        return [(p, _C_ops.scale(g, scale=scale) if _needs_clip(p, g) else g)
                for p, g in params_grads]


class HybridParallelOptimizer:
    """``optimizer`` for a model split over the layout of ``hcg``: its ClipGradByGlobalNorm
    (if any) becomes a HybridParallelClipGrad; everything else is the inner optimizer's."""

    def __init__(self, optimizer, hcg, strategy=None):
        self._inner_opt = optimizer
        self._hcg = hcg
        self._strategy = strategy
        split = hcg.get_model_parallel_world_size() > 1 or hcg.get_pipe_parallel_world_size() > 1
        clip = getattr(optimizer, "_grad_clip", None)
        if split and isinstance(clip, ClipGradByGlobalNorm):
            optimizer._grad_clip = HybridParallelClipGrad(clip, hcg)

    def __getattr__(self, name):
        return getattr(self._inner_opt, name)

    def step(self):
        self._inner_opt.step()

    def clear_grad(self, set_to_zero=True):
        self._inner_opt.clear_grad(set_to_zero)

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        return self._inner_opt.minimize(loss, startup_program, parameters, no_grad_set)

    def state_dict(self):
        return self._inner_opt.state_dict()

    def set_state_dict(self, state_dict):
        return self._inner_opt.set_state_dict(state_dict)
