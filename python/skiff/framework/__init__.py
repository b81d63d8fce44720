"""Framework internals: dtypes, the eager/static mode switch and op dispatch. The names
Paddle's examples reach through ``paddle.framework`` are re-exported here."""
from .param import ParamAttr, create_parameter  # noqa: F401
from .mode import disable_static, enable_static, in_dynamic_mode  # noqa: F401
from .dtype import get_default_dtype, set_default_dtype  # noqa: F401
from .random import seed  # noqa: F401
from .io import load, save  # noqa: F401
