"""PsOptimizer: what fleet.distributed_optimizer returns in dygraph parameter-server mode.
It trains the model given to fleet.distributed_model on the servers, in the job's mode:

- sync and async: a ps.Trainer. The dense parameters' tables apply the optimizer's rule on
  the servers (SGD, Adagrad or Adam with their settings) and start from trainer 0's model,
  as Paddle's init_worker does.
- geo: a ps.GeoTrainer, local SGD at the optimizer's learning rate (Paddle's GeoSGD: only
  SGD is accepted), sending deltas every k_steps steps.

A DistributedEmbedding's rows are updated by the optimizer its table was made with.
Learning-rate schedulers, weight decay, gradient clipping and parameter groups are refused:
the servers do not apply them.
"""
from ...optimizer import SGD, Adagrad, Adam
from ...optimizer.lr import LRScheduler
from ..ps import GeoTrainer, Trainer

__all__ = ["PsOptimizer", "server_rule"]


def server_rule(optimizer):
    """The servers' rule ({"kind": ..., "lr": ...}) equal to ``optimizer``; ValueError for
    an optimizer or setting the servers do not apply."""
    name = type(optimizer).__name__
    if isinstance(optimizer._learning_rate, LRScheduler):
        raise ValueError(f"fleet (parameter-server mode): {name} has a learning-rate "
                         f"scheduler; the servers apply a fixed rate")
    if optimizer.regularization is not None or optimizer._grad_clip is not None:
        raise ValueError(f"fleet (parameter-server mode): {name}'s weight decay or gradient "
                         f"clipping is not applied on the servers; leave them unset")
    if len(optimizer._param_groups) > 1:
        raise ValueError(f"fleet (parameter-server mode): {name} has parameter groups; the "
                         f"servers apply one rule to every dense table")
    lr = float(optimizer.get_lr())
    options = optimizer._defaults
    if type(optimizer) is SGD:
        return {"kind": "sgd", "lr": lr}
    if type(optimizer) is Adagrad:
        return {"kind": "adagrad", "lr": lr, "epsilon": options["epsilon"],
                "initial_g2sum": options["initial_accumulator_value"]}
    if type(optimizer) is Adam and not options["amsgrad"]:
        return {"kind": "adam", "lr": lr, "beta1": options["beta1"], "beta2": options["beta2"],
                "epsilon": options["epsilon"]}
    raise ValueError(f"fleet (parameter-server mode): the servers apply SGD, Adagrad or Adam "
                     f"(without amsgrad), not {name}")


class PsOptimizer:
    """``optimizer`` turned into the driver of a model on the servers in ``mode``
    ("sync", "async" or "geo", with ``k_steps``). bind(model, connection) makes the driver
    (fleet does it once distributed_model and init_worker were called); then step() after
    each backward, clear_grad() as usual."""

    def __init__(self, optimizer, mode, k_steps=0):
        self._inner, self.mode, self.k_steps = optimizer, mode, int(k_steps)
        self.driver = None
        self.steps_closed = False  # set by a fleet meeting: no sync step may follow
        if mode == "geo":
            if type(optimizer) is not SGD:
                raise ValueError(f"fleet (geo mode): trainers train locally with plain SGD "
                                 f"(Paddle's GeoSGD); pass skiff.optimizer.SGD, not "
                                 f"{type(optimizer).__name__}")
            server_rule(optimizer)  # (the same checks: no scheduler, decay, clip, groups)
        else:
            self._rule = server_rule(optimizer)

    def bind(self, model, connection):
        """Makes the driver of ``model`` on ``connection`` (pulls the dense values)."""
        if self.mode == "geo":
            self.driver = GeoTrainer(model, self.k_steps, float(self._inner.get_lr()),
                                     connection=connection, dense_from="trainer0")
        else:
            self.driver = Trainer(model, optimizer=self._rule, connection=connection,
                                  dense_from="trainer0")

    def _bound(self, what):
        if self.driver is None:
            raise RuntimeError(f"fleet (parameter-server mode): {what} needs the model: call "
                               f"fleet.init_worker() and fleet.distributed_model(model) first")
        return self.driver

    def step(self):
        """After backward: one step of the driver (sync: push, barrier, pull; async: push,
        pull; geo: local SGD, every k_steps a sync)."""
        driver = self._bound("step")
        if self.mode == "sync" and self.steps_closed:
            raise RuntimeError("fleet (sync mode): after a barrier_worker() the servers' step "
                               "count is past every training step; call it after the last "
                               "step")
        driver.step()

    def clear_grad(self, set_to_zero=True):
        """Clears the model's gradients (step() already did)."""
        for p in self._bound("clear_grad").model.parameters():
            p.clear_grad()

    clear_gradients = clear_grad

    def get_lr(self):
        return self._inner.get_lr()

    def flush(self):
        """Geo mode: the trainer's last sync (GeoTrainer.finish)."""
        if self.mode == "geo" and self.driver is not None:
            self.driver.finish()

    def refresh(self):
        """Takes the servers' current dense values (and, in geo mode, rows)."""
        if self.driver is None:
            return
        if self.mode == "geo":
            self.driver.refresh()
        else:
            self.driver.dense.pull()

    def __repr__(self):
        return f"fleet.PsOptimizer({type(self._inner).__name__}, {self.mode} mode)"
