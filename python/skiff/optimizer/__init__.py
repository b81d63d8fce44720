"""Optimizers (Paddle's paddle.optimizer): SGD, Momentum, Adam, AdamW, RMSProp, Adagrad
over the registered update ops, and the learning-rate schedules in ``lr``."""
from . import lr
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .clip import ClipGradByGlobalNorm, ClipGradByNorm, ClipGradByValue
from .momentum import Momentum
from .optimizer import Optimizer
from .rmsprop import RMSProp
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Momentum", "Adam", "AdamW", "RMSProp", "Adagrad", "lr"]
