"""paddle.static.create_parameter: skiff.create_parameter's static form, whatever the
current mode."""
from ..framework import param
from ..framework.mode import mode

__all__ = ["create_parameter"]


def create_parameter(shape, dtype, name=None, attr=None, is_bias=False,
                     default_initializer=None):
    """A parameter of the default main program initialised by the startup program: by
    ``attr.initializer``, else the global initializer, else ``default_initializer``,
    else XavierUniform (Constant(0) for a bias)."""
    previous, mode.static = mode.static, True
    try:
        return param.create_parameter(shape, dtype, name, attr, is_bias, default_initializer)
    finally:
        mode.static = previous
