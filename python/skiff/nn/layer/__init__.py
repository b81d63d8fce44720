"""The layer classes of skiff.nn."""
from .activation import *  # noqa: F401,F403
from .common import *  # noqa: F401,F403
from .container import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .layers import Layer  # noqa: F401
from .loss import *  # noqa: F401,F403
from .norm import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .rnn_cells import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .loss_likelihood import *  # noqa: F401,F403
from .loss_margin import *  # noqa: F401,F403
from .rearrange import *  # noqa: F401,F403
from .resample import *  # noqa: F401,F403
from .pooling_lp import *  # noqa: F401,F403
from .stochastic import *  # noqa: F401,F403
from .loss_multilabel import *  # noqa: F401,F403
from .norm_sync import *  # noqa: F401,F403
from .norm_spectral import *  # noqa: F401,F403
from .aliases import *  # noqa: F401,F403
from .hsigmoid import *  # noqa: F401,F403
from .adaptive_softmax import *  # noqa: F401,F403
from .conv3d import *  # noqa: F401,F403
from .pool3d import *  # noqa: F401,F403
from .loss_sequence import *  # noqa: F401,F403
from .pool_fractional import *  # noqa: F401,F403
from ...framework.tensor_params import check_layer_inputs as _check_layer_inputs  # noqa: E402

_check_layer_inputs(globals())  # each layer's forward checks its Tensor inputs
