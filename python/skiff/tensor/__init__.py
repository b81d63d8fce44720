"""Tensor functions (Paddle's paddle.tensor): creation, random, math, reductions,
in-place updates, manipulation, logic, search, statistics and linear algebra, and the
methods and operators of skiff.Tensor. As in Paddle 3.x, the module is also callable:
``skiff.tensor([1, 2])`` makes a Tensor (creation.tensor_of)."""
import sys
import types

from .creation import *  # noqa: F401,F403
from .random import *  # noqa: F401,F403
from .math import *  # noqa: F401,F403
from .complex_math import *  # noqa: F401,F403
from .special import *  # noqa: F401,F403
from .composite import *  # noqa: F401,F403
from .reduction import *  # noqa: F401,F403
from .inplace import *  # noqa: F401,F403
from .manipulation import *  # noqa: F401,F403
from .logic import *  # noqa: F401,F403
from .search import *  # noqa: F401,F403
from .stat import *  # noqa: F401,F403
from .histogramdd import *  # noqa: F401,F403
from .linalg import *  # noqa: F401,F403
from .axes import *  # noqa: F401,F403
from .joining import *  # noqa: F401,F403
from .scattering import *  # noqa: F401,F403
from .numeric import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .einsum import *  # noqa: F401,F403
from .ordering import *  # noqa: F401,F403
from .printing import *  # noqa: F401,F403
from .storage import create_tensor  # noqa: F401
from .creation import tensor_of as _tensor_of
from . import methods  # noqa: F401  (installs Tensor's methods and operators)
from ..framework.tensor_params import check_exports as _check_exports

_check_exports(globals())  # the public functions check their Tensor parameters


class _CallableModule(types.ModuleType):
    """skiff.tensor: this module, which called makes a Tensor."""

    def __call__(self, data, dtype=None, device=None, requires_grad=False, pin_memory=False):
        return _tensor_of(data, dtype, device, requires_grad, pin_memory)


sys.modules[__name__].__class__ = _CallableModule
