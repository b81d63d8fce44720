"""skiff.Model: training, evaluation and prediction loops around a network (Paddle's
paddle.Model), in eager mode.

    model = skiff.Model(net)
    model.prepare(skiff.optimizer.Adam(1e-3, parameters=model.parameters()),
                  skiff.nn.CrossEntropyLoss(), skiff.metric.Accuracy())
    model.fit(train_set, eval_set, epochs=3, batch_size=64)
    model.evaluate(test_set, batch_size=64)   # {'loss': [...], 'acc': ...}

A batch from the data is a list [input_1, ..., input_n, label_1, ...]: the first n
fields (n = len(inputs), or the number of positional arguments of network.forward) go
to the network, the rest to the loss and metrics after the network's outputs.
"""
import inspect
import os
import warnings

import numpy as np

from .. import _C
from .._C import Tensor
from ..autograd import no_grad
from ..metric import Metric
from ..tensor.creation import to_tensor
from .loops import LoopsMixin
from .model_summary import summary as _summary
from ..framework.io import save
from ..static import InputSpec
from .. import jit
from ..framework.io import load

__all__ = ["Model"]


def to_list(value):
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def to_numpy(value):
    """A numpy array of a Tensor (or anything array-like)."""
    if isinstance(value, np.ndarray):
        return value
    if callable(getattr(value, "numpy", None)):
        return np.asarray(value.numpy())
    return np.asarray(value)


def _as_tensor(value):
    return value if isinstance(value, Tensor) else to_tensor(value)


def _forward_arity(network):
    """How many leading batch fields network.forward takes (its positional parameters)."""
    try:
        params = inspect.signature(network.forward).parameters.values()
    except (TypeError, ValueError, AttributeError):
        return 1
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    count = sum(1 for p in params if p.kind in kinds)
    return count or 1


# Paddle's .pdparams files map state-dict keys to parameter names under this key; the
# optimizer state is keyed by parameter names ("linear_0.w_0_moment1_0").
_NAMES_KEY = "StructuredToParameterName@@"


def _renamed_optimizer_state(state, saved_names, current):
    """The optimizer ``state`` with the saved parameters' names replaced by the names of
    the parameters now holding the same state-dict keys."""
    renames = {saved_names[k]: getattr(v, "name", None) for k, v in current.items()
               if k in saved_names}
    renames = {old: new for old, new in renames.items() if new and new != old}
    if not renames:
        return state
    by_length = sorted(renames, key=len, reverse=True)
    out = {}
    for key, value in state.items():
        old = next((n for n in by_length if key.startswith(n + "_")), None)
        out[renames[old] + key[len(old):] if old else key] = value
    return out


def _strip_suffix(path):
    for suffix in (".pdparams", ".pdopt", ".pdmodel"):
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


class Model(LoopsMixin):
    """Wraps ``network`` (a skiff.nn.Layer) with fit / evaluate / predict. ``inputs`` and
    ``labels`` (InputSpecs, optional) give the number of input fields of a batch and the
    input shapes used by save(training=False) and summary()."""

    def __init__(self, network, inputs=None, labels=None):
        self.network = network
        self._inputs = to_list(inputs) if inputs is not None else None
        self._labels = to_list(labels)
        self._num_inputs = len(self._inputs) if inputs is not None else _forward_arity(network)
        self._optimizer = None
        self._loss = None
        self._metrics = []
        self._input_info = None
        self._accumulate = 1
        self._steps_run = 0
        self.stop_training = False

    def prepare(self, optimizer=None, loss=None, metrics=None, amp_configs=None):
        """Sets the optimizer (needed by fit / train_batch), the loss (a Layer or function of
        (outputs..., labels...)) and the metrics (skiff.metric.Metric instances)."""
        if loss is not None and not callable(loss):
            raise TypeError(f"Model.prepare: loss must be a Layer or a function, got "
                            f"{type(loss).__name__}")
        metrics = to_list(metrics)
        for m in metrics:
            if not isinstance(m, Metric):
                raise TypeError(f"Model.prepare: metrics must be skiff.metric.Metric "
                                f"instances, got {type(m).__name__}")
        if amp_configs not in (None, "O0") and not (
                isinstance(amp_configs, dict) and amp_configs.get("level", "O0") == "O0"):
            raise _C.Error(f"Model.prepare(amp_configs={amp_configs!r}): mixed precision is "
                           "not available in skiff's eager mode")
        self._optimizer = optimizer
        self._loss = loss
        self._metrics = metrics

    # One batch ----------------------------------------------------------------------

    def _remember_inputs(self, inputs):
        self._input_info = ([list(x.shape) for x in inputs], [x.dtype for x in inputs])

    def _update_metrics(self, outputs, labels):
        results = []
        with no_grad():
            for metric in self._metrics:
                stats = metric.compute(*(to_list(outputs) + labels))
                results.append(metric.update(*[to_numpy(s) for s in to_list(stats)]))
        return results

    def train_batch(self, inputs, labels=None, update=True):
        """One training step on a batch: forward, loss, backward and (with ``update``) the
        optimizer step. Returns the losses as numpy arrays, plus the metric values when
        metrics are set: ([loss, ...], [metric, ...])."""
        if self._optimizer is None or self._loss is None:
            raise _C.Error("Model.train_batch: call model.prepare(optimizer, loss) first")
        self.network.train()
        inputs = [_as_tensor(x) for x in to_list(inputs)]
        labels = [_as_tensor(y) for y in to_list(labels)]
        self._remember_inputs(inputs)
        outputs = self.network(*inputs)
        losses = to_list(self._loss(*(to_list(outputs) + labels)))
        total = losses[0]
        for extra in losses[1:]:
            total = total + extra
        total.backward()
        if update:
            self._optimizer.step()
            self._optimizer.clear_grad()
        metrics = self._update_metrics(outputs, labels)
        loss_values = [to_numpy(v) for v in losses]
        return (loss_values, metrics) if metrics else loss_values

    def eval_batch(self, inputs, labels=None):
        """Forward (no gradients) and loss / metrics on a batch; returns like train_batch
        (only the metrics when no loss is set)."""
        self.network.eval()
        inputs = [_as_tensor(x) for x in to_list(inputs)]
        labels = [_as_tensor(y) for y in to_list(labels)]
        self._remember_inputs(inputs)
        with no_grad():
            outputs = self.network(*inputs)
            losses = to_list(self._loss(*(to_list(outputs) + labels))) if self._loss else []
        metrics = self._update_metrics(outputs, labels)
        loss_values = [to_numpy(v) for v in losses]
        if self._loss and metrics:
            return loss_values, metrics
        return loss_values if self._loss else metrics

    def predict_batch(self, inputs):
        """The network's outputs on a batch, as a list of numpy arrays."""
        self.network.eval()
        inputs = [_as_tensor(x) for x in to_list(inputs)]
        self._remember_inputs(inputs)
        with no_grad():
            outputs = self.network(*inputs)
        return [to_numpy(o) for o in to_list(outputs)]

    # Saving and loading -------------------------------------------------------------

    def save(self, path, training=True):
        """training=True: the parameters to ``path``.pdparams and the optimizer state to
        ``path``.pdopt (skiff.save). training=False: an inference program through
        skiff.jit.save (``path``.skmodel + ``path``.skparams)."""
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if not training:
            self._save_inference_model(path)
            return
        state = self.network.state_dict()
        payload = dict(state)
        payload[_NAMES_KEY] = {k: v.name for k, v in state.items() if getattr(v, "name", None)}
        save(payload, path + ".pdparams")
        if self._optimizer is not None:
            state = self._optimizer.state_dict()
            if state:
                save(state, path + ".pdopt")

    def _input_specs(self):
        if self._inputs:
            return self._inputs
        if self._input_info is None:
            raise _C.Error("Model.save(training=False) needs the input shapes: pass "
                           "inputs=[InputSpec(...)] to Model, or run a batch first")
        shapes, dtypes = self._input_info
        names = list(inspect.signature(self.network.forward).parameters)
        return [InputSpec([None] + shape[1:], dtype, names[i] if i < len(names) else None)
                for i, (shape, dtype) in enumerate(zip(shapes, dtypes))]

    def _save_inference_model(self, path):
        was_training = getattr(self.network, "training", True)
        self.network.eval()
        try:
            jit.save(self.network, path, input_spec=self._input_specs())
        finally:
            if was_training:
                self.network.train()

    def load(self, path, skip_mismatch=False, reset_optimizer=False):
        """Loads parameters saved by save(path) (and the optimizer state unless
        ``reset_optimizer``); ``skip_mismatch`` skips missing or misshaped entries with a
        warning instead of raising (and then leaves the optimizer as it is). The optimizer
        state follows the parameters by state-dict key, whatever their unique names."""
        path = _strip_suffix(path)
        saved = load(path + ".pdparams")
        saved_names = saved.pop(_NAMES_KEY, None) or {}
        current = self.network.state_dict()
        matched = {}
        for key, param in current.items():
            problem = None
            if key not in saved:
                problem = f"{key} is not in {path}.pdparams"
            else:
                shape = list(np.shape(to_numpy(saved[key])))
                if shape != list(param.shape):
                    problem = f"{key} has shape {shape} in the file but {list(param.shape)} here"
            if problem is None:
                matched[key] = saved[key]
            elif skip_mismatch:
                warnings.warn(f"Model.load: skipping {problem}")
                reset_optimizer = True
            else:
                raise ValueError(f"Model.load: {problem} (skip_mismatch=True skips it)")
        self.network.set_state_dict(matched)
        if self._optimizer is not None and not reset_optimizer and os.path.exists(
                path + ".pdopt"):
            state = load(path + ".pdopt")
            state.pop(_NAMES_KEY, None)
            self._optimizer.set_state_dict(_renamed_optimizer_state(state, saved_names,
                                                                    current))

    def parameters(self, *args, **kwargs):
        """The network's parameters."""
        return self.network.parameters(*args, **kwargs)

    def summary(self, input_size=None, dtype=None):
        """Prints the network's layers, output shapes and parameter counts (skiff.summary);
        input_size defaults to the shapes of Model's inputs specs."""
        if input_size is None:
            if self._inputs:
                input_size = [tuple(spec.shape) for spec in self._inputs]
                dtype = dtype or [getattr(spec, "dtype", "float32") for spec in self._inputs]
            elif self._input_info is not None:
                input_size = [tuple(s) for s in self._input_info[0]]
                dtype = dtype or self._input_info[1]
            else:
                raise ValueError("Model.summary: give input_size, or inputs to Model")
        return _summary(self.network, input_size, dtypes=dtype)

