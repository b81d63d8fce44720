"""skiff.base: the names Paddle's examples reach through ``paddle.base`` (ParamAttr, the
dtypes and mode switches, the CPU place, flags), re-exported from where skiff keeps
them."""
from ..framework.param import ParamAttr, create_parameter  # noqa: F401
from ..framework.mode import disable_static, enable_static, in_dynamic_mode  # noqa: F401
from ..framework.dtype import get_default_dtype, set_default_dtype  # noqa: F401
from ..autograd import no_grad  # noqa: F401
from ..static import CPUPlace, Program, get_flags, program_guard, set_flags  # noqa: F401
from .. import framework, static  # noqa: F401
from . import dygraph  # noqa: F401
