"""skiff.jit: to_static turns Python functions and Layers into programs (their `if`,
`while` and `for` on Tensors become cond / while ops), run by the C++ interpreter
with gradients flowing back to eager code; save / load write and read them as
.skmodel / .skparams files; compile builds a saved program into a native executable."""
from .compile import compile
from .config import ignore_module, set_code_level, set_verbosity
from .converter import not_to_static
from .io import TranslatedLayer, load, save
from .static_function import StaticFunction, enable_to_static, to_static

__all__ = ["to_static", "not_to_static", "StaticFunction", "enable_to_static", "save", "load",
           "TranslatedLayer", "compile", "set_verbosity", "set_code_level", "ignore_module"]
