"""paddle.nn.functional for skiff: layers' computations as functions over tensors."""
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .conv import conv2d, conv2d_transpose  # noqa: F401
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .conv1d import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .activation_inplace import *  # noqa: F401,F403
from .attention import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .shuffle import *  # noqa: F401,F403
from .loss_likelihood import *  # noqa: F401,F403
from .loss_margin import *  # noqa: F401,F403
from .resample import *  # noqa: F401,F403
from .pooling_lp import *  # noqa: F401,F403
from .unpool import *  # noqa: F401,F403
from .stochastic import *  # noqa: F401,F403
from .loss_multilabel import *  # noqa: F401,F403
from .gated import *  # noqa: F401,F403
from .hsigmoid import *  # noqa: F401,F403
from .adaptive_softmax import *  # noqa: F401,F403
from .conv3d import *  # noqa: F401,F403
from .pool3d import *  # noqa: F401,F403
from .loss_sequence import *  # noqa: F401,F403
from .pool_fractional import *  # noqa: F401,F403
from .extension import *  # noqa: F401,F403
from .affine_grid import *  # noqa: F401,F403
from .loss_metric import *  # noqa: F401,F403
from .class_center import *  # noqa: F401,F403
from ...framework.tensor_params import check_exports as _check_exports  # noqa: E402

_check_exports(globals())  # the public functions check their Tensor parameters
