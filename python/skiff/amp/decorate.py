"""decorate (Paddle's paddle.amp.decorate): at level O1 models and optimizers run unchanged
(auto_cast casts op inputs); level O2 (bfloat16 parameters) is not supported."""
from .. import _C

__all__ = ["decorate", "amp_decorate"]


def decorate(models, optimizers=None, level="O1", dtype="float16", master_weight=None,
             save_dtype=None, master_grad=False, excluded_layers=None):
    """Returns (models, optimizers), or models when optimizers is None. O1 leaves the
    parameters float32; O2 raises skiff.Error, as skiff's ops lack bfloat16 kernels."""
    if level not in ("O0", "O1", "O2", "OD"):
        raise ValueError(f"decorate: level should be O0, OD, O1 or O2, got {level!r}")
    if dtype not in ("float16", "bfloat16"):
        raise ValueError(f"decorate: dtype should be 'float16' or 'bfloat16', got {dtype!r}")
    if level == "O2":
        raise _C.Error("decorate: level='O2' (bfloat16 parameters with float32 master "
                       "weights) is not supported: most skiff ops have no bfloat16 kernels; "
                       "use level='O1' with auto_cast(dtype='bfloat16')")
    if optimizers is None:
        return models
    return models, optimizers


amp_decorate = decorate
