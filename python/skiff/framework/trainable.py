"""What the optimizers read of a parameter, eager (framework.param.Parameter, a Tensor) or
static (framework.variable.Parameter, a Variable): whether it trains, its learning-rate
factor, regularizer and clipping settings."""

__all__ = ["Trainable"]


class Trainable:
    """The training settings of a parameter; ``trainable`` is ``not stop_gradient``."""

    _is_parameter = True

    def _init_training(self, trainable=True, optimize_attr=None, regularizer=None,
                       need_clip=True, do_model_average=True):
        self.trainable = trainable
        self.optimize_attr = optimize_attr or {"learning_rate": 1.0}
        self.regularizer = regularizer
        self.need_clip = need_clip
        self.do_model_average = do_model_average
        self.is_distributed = False

    @property
    def trainable(self):
        return not self.stop_gradient

    @trainable.setter
    def trainable(self, value):
        self.stop_gradient = not value
