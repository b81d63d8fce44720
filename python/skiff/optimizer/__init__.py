"""Optimizers (Paddle's paddle.optimizer): SGD, Momentum, Adam, AdamW, RMSProp, Adagrad,
Adamax, Adadelta, NAdam, RAdam, Lamb over the registered update ops, and the
learning-rate schedules in ``lr``."""
from . import lr
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from ..nn.clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from .lamb import Lamb
from .lbfgs import LBFGS
from .momentum import Momentum
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSProp
from .rprop import Rprop
from .sgd import SGD

from ..framework.tensor_params import check_classes as _check_classes

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "Adamax",
           "Adadelta", "NAdam", "RAdam", "Lamb", "Rprop", "ASGD", "LBFGS", "lr"]

_check_classes(globals(), ("__init__",))  # a failed construction names the wrong argument
