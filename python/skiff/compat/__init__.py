"""paddle.compat: the PyTorch-compatible API surface. Its functions (sort, max, min,
median, nanmedian, split, equal, seed) and its nn / nn.functional (Linear, Softmax;
softmax, linear, pad) take PyTorch's signatures and give PyTorch's results, over skiff's
ops. enable_compat() makes ``import torch`` give skiff with these in front (proxy.py)."""
from . import nn
from .functions import (MedianRetType, MinMaxRetType, SortRetType, equal, max, median, min,
                        nanmedian, seed, sort, split)
from .proxy import (disable_compat, disable_torch_proxy, enable_compat, enable_torch_proxy,
                    extend_torch_proxy_blocked_modules, use_torch_proxy_guard)

__all__ = ["equal", "sort", "split", "min", "max", "median", "nanmedian", "seed", "nn",
           "SortRetType", "MinMaxRetType", "MedianRetType", "enable_torch_proxy",
           "disable_torch_proxy", "use_torch_proxy_guard", "extend_torch_proxy_blocked_modules"]
