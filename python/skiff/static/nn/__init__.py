"""paddle.static.nn: control flow (cond, while_loop, switch_case, case), regions with a
gradient of their own (static_pylayer) and layer functions (fc, conv2d, batch_norm,
embedding, sparse_embedding, spectral_norm) for static programs."""
from .common import batch_norm, conv2d, embedding, fc, sparse_embedding, spectral_norm
from .pylayer import static_pylayer
from ...tensor.control_flow import case, cond, switch_case, while_loop

__all__ = ["cond", "while_loop", "switch_case", "case", "fc", "conv2d", "batch_norm",
           "embedding", "sparse_embedding", "spectral_norm", "static_pylayer"]
