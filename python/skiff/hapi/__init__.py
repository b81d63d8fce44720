"""The high-level API (Paddle's paddle.hapi): skiff.Model with fit / evaluate / predict,
its callbacks (skiff.callbacks) and skiff.summary."""
from . import callbacks
from .callbacks import (Callback, EarlyStopping, LRScheduler, ModelCheckpoint,
                        ProgBarLogger, VisualDL)
from .model import Model
from .model_summary import summary
from .progressbar import ProgressBar

__all__ = ["Model", "summary", "callbacks", "Callback", "EarlyStopping", "LRScheduler",
           "ModelCheckpoint", "ProgBarLogger", "ProgressBar", "VisualDL"]
