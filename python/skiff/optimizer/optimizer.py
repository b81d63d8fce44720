"""The optimizer base (Paddle's paddle.optimizer.Optimizer). Eager ``step()`` clips,
regularizes and updates every parameter with its gradient through the registered
optimizer ops, writing parameters and accumulators in place; in static mode
``minimize(loss)`` appends the backward pass and the same ops to the program."""
import itertools
import numbers
import re

import numpy as np

from .. import _C
from .. import _C_ops
from ..autograd import no_grad
from ..framework import arguments
from ..framework.core import eager_op
from ..framework import dtype as dtypes
from ..framework.dtype import dtype_name
from ..framework.mode import mode
from ..regularizer import L2Decay, WeightDecayRegularizer
from . import static_support
from ..nn.clip import ClipGradBase, _is_sparse
from ..nn.layer.layers import HookRemoveHelper
from .lr import LRScheduler
from ..tensor.creation import to_tensor

__all__ = ["Optimizer"]

_hook_ids = itertools.count()  # keys of step hooks (a removed hook's key is never reused)


def _without_counter(name):
    return re.sub(r"_\d+$", "", name)


def _as_float(value, what, owner="Optimizer"):
    """A float setting ``what`` of an optimizer (``owner``: it, or the name errors give):
    a real number or a Tensor of one element; a bool is refused."""
    where = owner if isinstance(owner, str) else type(owner).__name__
    if isinstance(value, _C.Tensor):
        return arguments.number(where, what, value)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise arguments.ArgumentTypeError(f"{where}: {what} must be a float, got "
                                          f"{type(value).__name__}")
    return float(value)


class Optimizer:
    """Base of the optimizers. ``parameters``: a list of parameters, or of dicts
    {'params': [...], option: value} whose options ('learning_rate' as a factor on the
    global rate, 'weight_decay', 'grad_clip' and the optimizer's own) override the
    defaults for that group. ``weight_decay``: a float (L2, added to the gradient) or a
    skiff.regularizer.L1Decay/L2Decay. ``grad_clip``: a skiff.nn.ClipGradBy* object."""

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None,
                 name=None):
        if not isinstance(learning_rate, LRScheduler):
            learning_rate = _as_float(learning_rate, "learning_rate", self)
        if parameters is None and not mode.static:
            raise AttributeError(f"{type(self).__name__}: parameters must be given in eager "
                                 f"mode (e.g. parameters=model.parameters())")
        if grad_clip is not None and not isinstance(grad_clip, ClipGradBase):
            raise TypeError(f"grad_clip must be a ClipGradByGlobalNorm, ClipGradByNorm or "
                            f"ClipGradByValue, got {type(grad_clip).__name__}")
        self._learning_rate = learning_rate
        self._name = name
        if not hasattr(self, "_defaults"):
            self._defaults = {}  # the subclass's per-group options (set before this runs)
        self.regularization = self._as_regularizer(weight_decay)
        self._grad_clip = grad_clip
        self._accumulators = {}         # accumulator kind -> {param name -> tensor}
        self._accumulators_holder = {}  # loaded state waiting for its accumulators
        self._static_lr = {}            # program -> its learning-rate variable
        self._ready = set()             # names of the parameters whose accumulators exist
        self._update_ops = {}           # (type, attrs, output counts) -> eager op
        self._accumulator_lists = {}    # (param name, kinds) -> [accumulator, ...]
        self._eager_lr = {}             # (dtype, scale) -> (value, its [1] tensor)
        self._master_weights = {}       # bfloat16 parameter name -> its float32 master
        self._param_groups = []
        self._parameter_list = None
        if parameters is not None:
            self._set_parameters(parameters)
        self.clear_gradients = self.clear_grad

    # ----- construction helpers -------------------------------------------------------
    def _as_regularizer(self, weight_decay):
        if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
            return weight_decay
        return L2Decay(_as_float(weight_decay, "weight_decay", self))

    def _set_parameters(self, parameters):
        where = type(self).__name__
        if isinstance(parameters, (_C.Tensor, str, bytes, dict, np.ndarray)) or \
                not hasattr(parameters, "__iter__"):
            got = "a single Tensor" if isinstance(parameters, _C.Tensor) else \
                type(parameters).__name__
            raise arguments.ArgumentTypeError(f"{where}: parameters must be a list of Tensors "
                                              f"or of param-group dicts, got {got}")
        parameters = list(parameters)
        for i, p in enumerate(parameters):
            if not (arguments.is_tensor(p) or isinstance(p, dict)):
                raise arguments.ArgumentTypeError(f"{where}: parameters[{i}] must be a Tensor "
                                                  f"or a param-group dict, got "
                                                  f"{type(p).__name__}")
        groups = parameters if parameters and isinstance(parameters[0], dict) else [
            {"params": parameters}]
        self._param_groups = []
        for group in groups:
            self._add_param_group(dict(group))
        self._parameter_list = [p for g in self._param_groups for p in g["params"]]

    def _add_param_group(self, group):
        """Adds a group ({'params': [...], options...}), filling in the defaults."""
        params = group.get("params")
        if params is None:
            raise ValueError("a parameter group needs a 'params' entry")
        group["params"] = [params] if isinstance(params, _C.Tensor) else list(params)
        if isinstance(params, set):
            raise TypeError("a parameter group's params must be ordered (a list, not a set)")
        seen = {id(p) for g in self._param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("a parameter appears in more than one parameter group")
        for key, value in self._defaults.items():
            group.setdefault(key, value)
        self._param_groups.append(group)

    # ----- learning rate --------------------------------------------------------------
    def get_lr(self):
        """The current global learning rate (a scheduler's current value)."""
        if isinstance(self._learning_rate, LRScheduler):
            return self._learning_rate()
        return self._learning_rate

    def set_lr(self, value):
        """Sets a float learning rate (not allowed with an LRScheduler)."""
        if isinstance(self._learning_rate, LRScheduler):
            raise RuntimeError("set_lr: this optimizer's learning rate is an LRScheduler; "
                               "step the scheduler instead")
        self._learning_rate = _as_float(value, "learning_rate", self)
        for _, var in self._static_lr.values():
            static_support.set_value(var, self._learning_rate)

    def set_lr_scheduler(self, scheduler):
        if not isinstance(scheduler, LRScheduler):
            raise TypeError(f"set_lr_scheduler wants an LRScheduler, got "
                            f"{type(scheduler).__name__}")
        self._learning_rate = scheduler

    def _lr_scale(self, param, group):
        """The factor on the global rate for ``param``: the group's 'learning_rate' when
        given, else the parameter's optimize_attr['learning_rate']."""
        if "learning_rate" in group:
            return float(group["learning_rate"])
        attr = getattr(param, "optimize_attr", None)
        return float(attr.get("learning_rate", 1.0)) if attr else 1.0

    def _lr_input(self, param, group, cache, target=None):
        """The one-element LearningRate input for ``param``'s update (of ``target``, its
        master weight, when it has one: in the target's dtype)."""
        scale = self._lr_scale(param, group)
        target = param if target is None else target
        dtype = dtype_name(target.dtype) if mode.static else target._dtype_name
        key = (dtype, scale)
        if key not in cache:
            if mode.static:
                lr = static_support.learning_rate_var(self)
                if scale != 1.0:
                    lr = _C_ops.scale(lr, scale=scale)
                if dtype != "float32":
                    lr = _C_ops.cast(lr, out_dtype=dtype)
            else:  # one tensor per value, kept while the rate stays the same
                value = self.get_lr() * scale
                held = self._eager_lr.get(key)
                if held is None or held[0] != value:
                    held = self._eager_lr[key] = (value, _C_ops.fill_constant(
                        shape=[1], value=value, dtype=dtype))
                lr = held[1]
            cache[key] = lr
        return cache[key]

    # ----- accumulators ---------------------------------------------------------------
    def _param_name(self, param):
        if not param.name:
            param.name = static_support.unique_name("param")
        return param.name

    def _add_accumulator(self, kind, param, fill_value=0.0, shape=None, dtype=None):
        """The accumulator ``kind`` of ``param`` (created on first use, filled with
        fill_value, or taken from a loaded state_dict), named like Paddle's."""
        per_param = self._accumulators.setdefault(kind, {})
        key = self._param_name(param)
        if key in per_param:
            return per_param[key]
        name = static_support.unique_name(f"{key}_{kind}")
        shape = list(param.shape) if shape is None else list(shape)
        dtype = dtype_name(dtype or param.dtype)
        if mode.static:
            var = static_support.create_global_var(name, shape, fill_value, dtype)
        else:
            var = _C_ops.fill_constant(shape=shape, value=float(fill_value), dtype=dtype)
            var.name, var.persistable, var.stop_gradient = name, True, True
            loaded = self._take_loaded(name)
            if loaded is not None:
                self._load_value(var, loaded)
        per_param[key] = var
        return var

    def _get_accumulator(self, kind, param):
        return self._accumulators[kind][self._param_name(param)]

    def _accumulators_of(self, param, kinds):
        """``param``'s accumulators of the given kinds (a tuple), in order; an accumulator
        keeps its identity once created (loading a state copies into it), so the list is
        looked up once."""
        key = (self._param_name(param), kinds)
        accs = self._accumulator_lists.get(key)
        if accs is None:
            accs = self._accumulator_lists[key] = [self._accumulators[k][key[0]] for k in kinds]
        return accs

    def _take_loaded(self, name):
        holder = self._accumulators_holder
        if name in holder:
            return holder.pop(name)
        base = _without_counter(name)
        for saved in holder:
            if _without_counter(saved) == base:
                return holder.pop(saved)
        return None

    @staticmethod
    def _load_value(var, value):
        src = value if isinstance(value, _C.Tensor) else to_tensor(value, dtype=var.dtype)
        if list(src.shape) != list(var.shape):
            raise ValueError(f"optimizer state '{var.name}': saved shape {list(src.shape)} "
                             f"does not match {list(var.shape)}")
        if dtype_name(src.dtype) != dtype_name(var.dtype):
            src = src.astype(var.dtype)
        var._copy_value_from(src)

    # ----- state ----------------------------------------------------------------------
    def state_dict(self):
        """{accumulator name: Tensor} for every accumulator, plus 'LR_Scheduler' (the
        scheduler's state) when the learning rate is an LRScheduler."""
        state = {}
        if not self._accumulators:  # a loaded state not taken yet: its values, as Tensors
            state.update({k: to_tensor(v) if isinstance(v, np.ndarray) else v
                          for k, v in self._accumulators_holder.items()})
        for per_param in self._accumulators.values():
            for var in per_param.values():
                state[var.name] = var
        for master in self._master_weights.values():
            state[master.name] = master
        if isinstance(self._learning_rate, LRScheduler):
            state["LR_Scheduler"] = self._learning_rate.state_dict()
        return state

    def set_state_dict(self, state_dict):
        """Loads what state_dict returned (Tensors or numpy arrays): existing accumulators
        take their values now, the others when they are created."""
        state = dict(state_dict)
        lr_state = state.pop("LR_Scheduler", None)
        if isinstance(self._learning_rate, LRScheduler) and lr_state is not None:
            self._learning_rate.set_state_dict(lr_state)
        state.pop("master_weights", None)
        self._accumulators_holder = state
        for per_param in self._accumulators.values():
            for var in per_param.values():
                loaded = self._take_loaded(var.name)
                if loaded is None:
                    raise KeyError(f"set_state_dict: the state has no entry for optimizer "
                                   f"tensor '{var.name}'")
                self._load_value(var, loaded)

    load_state_dict = set_state_dict

    # ----- the update -----------------------------------------------------------------
    @staticmethod
    def _wants_update(param):
        return getattr(param, "trainable", True) and not param.stop_gradient

    def _regularizer_for(self, param, group):
        """Coupled weight decay for ``param``: the group's 'weight_decay' when given, else
        the parameter's own regularizer, else the optimizer's."""
        if "weight_decay" in group:
            return self._as_regularizer(group["weight_decay"])
        own = getattr(param, "regularizer", None)
        return own if own is not None else self.regularization

    def _regularize(self, param, grad, group, value=None):
        """grad with ``param``'s coupled weight decay added, computed on ``value`` (the
        parameter's float32 master weight, when it has one) or on the parameter."""
        regularizer = self._regularizer_for(param, group)
        if regularizer is None or regularizer.coeff == 0.0:
            return grad
        term = regularizer(param if value is None else value, grad)
        if _is_sparse(grad):
            return _C_ops.sum([term, grad])
        return _C_ops.elementwise_add(grad, term, axis=-1)

    def _master(self, param, grad):
        """(what the update writes, its gradient): a bfloat16 parameter is updated through a
        float32 master weight (made from it on first use; skiff's update ops are float32
        and float64, and bfloat16 steps would round small updates away), its gradient
        widened; any other parameter is updated itself."""
        if param.dtype != dtypes.bfloat16:
            return param, grad
        if mode.static:
            raise _C.Error(f"optimizer: parameter '{param.name}' is bfloat16: float32 master "
                           f"weights are kept in eager mode only")
        master = self._master_weights.get(param.name)
        if master is None:
            loaded = self._take_loaded(param.name + "_fp32_master_0")
            master = _C_ops.cast(param, out_dtype="float32")
            if loaded is not None:
                self._load_value(master, loaded)
            master.name, master.persistable, master.stop_gradient = (
                param.name + "_fp32_master_0", True, True)
            self._master_weights[param.name] = master
        return master, _C_ops.cast(grad, out_dtype="float32")

    def _dense_grad(self, param, grad):
        """A sparse (selected-rows) gradient as a dense one, for ops without sparse kernels."""
        if not _is_sparse(grad):
            return grad
        zeros = _C_ops.fill_any_like(param, value=0.0, dtype="")
        return _C_ops.sum([zeros, grad])

    def _apply_group(self, params_grads, group):
        clip = group.get("grad_clip", self._grad_clip)
        if clip is not None:
            params_grads = clip(params_grads)
        lr_cache = {}
        for param, grad in params_grads:
            target, grad = self._master(param, grad)
            grad = self._regularize(param, self._prepare_grad(target, grad, group), group,
                                    target)
            if mode.static or target.name not in self._ready:
                self._create_accumulators(target, group)
                self._ready.add(self._param_name(target))
            self._append_optimize_op(target, grad, self._lr_input(param, group, lr_cache, target),
                                     group)
            if target is not param:  # the parameter: its master weight, rounded
                _C_ops.cast(target, out_dtype="bfloat16", out=[param])

    def _prepare_grad(self, param, grad, group):
        """The gradient before weight decay (Momentum rescales it here)."""
        return grad

    def _create_accumulators(self, param, group):
        """Creates ``param``'s accumulators (none for plain SGD)."""

    def _append_optimize_op(self, param, grad, lr, group):
        raise NotImplementedError(f"{type(self).__name__} defines no update")

    def _run_update(self, type, inputs, outputs, attrs, output_counts=None):
        """Runs (eager) or appends (static) the update op ``type`` on ``inputs`` (one entry
        per input slot), writing ``outputs`` (one per output slot) in place: a cached op,
        whose call goes through the dispatch point in static mode or under a hook."""
        key = (type, tuple(attrs.items()), tuple(output_counts) if output_counts else None)
        op = self._update_ops.get(key)
        if op is None:
            op = self._update_ops[key] = eager_op(type, attrs, output_counts)
        return op.call_into(inputs, outputs)

    @no_grad()
    def step(self):
        """Updates every parameter that has a gradient (eager mode)."""
        if mode.static:
            raise RuntimeError("step() runs in eager mode; in static mode call minimize(loss)")
        for group in self._param_groups:
            params_grads = [(p, p.grad) for p in group["params"]
                            if self._wants_update(p) and p.grad is not None]
            if params_grads:
                self._apply_group(params_grads, group)
        self._run_step_post_hooks()

    def register_step_post_hook(self, hook):
        """Calls ``hook(optimizer, args, kwargs)`` after every eager step() and minimize();
        returns a handle whose remove() unregisters it (PyTorch's optimizer hook)."""
        hooks = self.__dict__.setdefault("_step_post_hooks", {})
        key = next(_hook_ids)
        hooks[key] = hook
        return HookRemoveHelper(hooks, key)

    def _run_step_post_hooks(self):
        hooks = self.__dict__.get("_step_post_hooks")
        for hook in list(hooks.values()) if hooks else ():
            hook(self, (), {})

    def clear_grad(self, set_to_zero=True):
        """Zeroes every parameter's gradient in place (or drops it: set_to_zero=False).
        Zeroing writes no memory: the next backward stores its gradient instead of adding."""
        for p in self._parameter_list or []:
            grad = p.grad
            if grad is None:
                continue
            if set_to_zero and not _is_sparse(grad):
                grad._zero_()
            else:
                p.grad = None

    def backward(self, loss, startup_program=None, parameters=None, no_grad_set=None,
                 callbacks=None):
        """The (parameter, gradient) pairs: in eager mode those already computed by
        loss.backward(); in static mode appended to the program."""
        if mode.static:
            return static_support.append_backward(loss, parameters or self._parameter_list,
                                                  no_grad_set)
        params = parameters if parameters is not None else self._parameter_list
        return [(p, p.grad) for p in params if self._wants_update(p) and p.grad is not None]

    def apply_gradients(self, params_grads):
        """Clips, regularizes and applies the given (parameter, gradient) pairs."""
        params_grads = [(p, g) for p, g in params_grads if g is not None]
        with no_grad():
            group_of = {id(p): g for g in self._param_groups for p in g["params"]}
            default = dict(self._defaults)  # for parameters outside every group
            by_group = {}
            for p, g in params_grads:
                group = group_of.get(id(p), default)
                by_group.setdefault(id(group), (group, []))[1].append((p, g))
            for group, pairs in by_group.values():
                self._apply_group(pairs, group)
        return []

    def minimize(self, loss, startup_program=None, parameters=None, no_grad_set=None):
        """Eager: applies the gradients loss.backward() left (Paddle's dygraph behaviour).
        Static: appends the backward pass and the update ops to loss's program."""
        if mode.static:
            return static_support.minimize(self, loss, startup_program, parameters, no_grad_set)
        params_grads = self.backward(loss, startup_program, parameters, no_grad_set)
        self.apply_gradients(params_grads)
        self._run_step_post_hooks()
        return None, params_grads
