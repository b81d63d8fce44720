"""decorate (Paddle's paddle.amp.decorate): at level O1 models and optimizers run unchanged
(auto_cast casts op inputs); at level O2 the models' parameters become bfloat16 (those of
normalization layers and excluded_layers stay float32) and optimizers update them through
float32 master weights (the optimizer keeps one per bfloat16 parameter, updates it with the
widened gradient and writes it back rounded)."""
from .. import _C
from .. import _C_ops
from ..autograd import no_grad
from ..framework import dtype as dt
from ..nn.layer.norm import _BatchNormBase, _InstanceNormBase, GroupNorm, LayerNorm

__all__ = ["decorate", "amp_decorate"]


def _norm_layers():
    return (_BatchNormBase, _InstanceNormBase, GroupNorm, LayerNorm)


def _excluded(layer, excluded_layers):
    for e in excluded_layers:
        if layer is e or (isinstance(e, type) and isinstance(layer, e)):
            return True
    return isinstance(layer, _norm_layers())


@no_grad()
def _to_bfloat16(model, excluded_layers):
    """Casts, in place, the float32 parameters of the model's layers not excluded."""
    for layer in model.sublayers(include_self=True):
        if _excluded(layer, excluded_layers):
            continue
        for p in layer.parameters(include_sublayers=False):
            if p.dtype == dt.float32:
                _C_ops.cast(p, out_dtype="bfloat16", out=[p])


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """Returns (models, optimizers), or models when optimizers is None. O1 leaves the
    parameters float32. O2 (dtype='bfloat16') casts the models' parameters to bfloat16 in
    place, except normalization layers' and those of ``excluded_layers`` (layers or layer
    types); the optimizers keep float32 master weights for them (``master_weight`` None or
    True; False is refused, as skiff's update ops are float32)."""
    if level not in ("O0", "O1", "O2", "OD"):
        raise ValueError(f"decorate: level should be O0, OD, O1 or O2, got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"decorate: dtype should be 'float16' or 'bfloat16', got {dtype!r}")
    if level == "O2":
        if dtype != "bfloat16":
            raise _C.Error("decorate: level='O2' with dtype='float16' is not supported: "
                           "skiff's CPU kernels take bfloat16; use dtype='bfloat16'")
        if master_weight is False:
            raise _C.Error("decorate: master_weight=False is not supported: bfloat16 "
                           "parameters are updated through float32 master weights")
        excluded = excluded_layers or []
        excluded = list(excluded) if isinstance(excluded, (list, tuple)) else [excluded]
        for model in (models if isinstance(models, (list, tuple)) else [models]):
            _to_bfloat16(model, excluded)
    if optimizers is None:
        return models
    return models, optimizers


amp_decorate = decorate
