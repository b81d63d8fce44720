"""DistributedStrategy: the fields of Paddle's fleet.DistributedStrategy that skiff applies,
for collective data parallelism (bucket sizes) and for the parameter server (its mode)."""

__all__ = ["DistributedStrategy"]

_HYBRID_DEFAULTS = {"dp_degree": -1, "mp_degree": 1, "pp_degree": 1, "sharding_degree": 1}
_PIPELINE_DEFAULTS = {"accumulate_steps": 1, "micro_batch_size": 1, "schedule_mode": "1F1B"}
_SCHEDULES = ("1F1B", "FThenB")
_SHARDING_DEFAULTS = {"stage": 1}


def _positive_int(value, what, allow_infer=False):
    if isinstance(value, bool) or not isinstance(value, int) or not (
            value >= 1 or (allow_infer and value == -1)):
        more = " (or -1: the world size over the other degrees)" if allow_infer else ""
        raise ValueError(f"DistributedStrategy.{what} must be a positive integer{more}, got "
                         f"{value!r}")
    return value


def _checked_configs(configs, defaults, what):
    if not isinstance(configs, dict):
        raise TypeError(f"DistributedStrategy.{what} must be a dict, got "
                        f"{type(configs).__name__}")
    unknown = sorted(set(configs) - set(defaults))
    if unknown:
        raise ValueError(f"DistributedStrategy.{what}: unknown key(s) "
                         f"{', '.join(map(repr, unknown))}; skiff applies "
                         f"{', '.join(defaults)}")
    return dict(defaults, **configs)

# Paddle's a_sync_configs keys that tune its communicator's threads, queues and merging:
# skiff's client sends each step's values itself, so they are accepted and change nothing.
_A_SYNC_NO_EFFECT = ("max_merge_var_num", "send_queue_size", "independent_recv_thread",
                     "min_send_grad_num_before_recv", "thread_pool_size", "send_wait_times",
                     "runtime_split_send_recv", "launch_barrier", "lr_decay_steps")


def _check_k_steps(value):
    if isinstance(value, bool) or not isinstance(value, int) or value < -1:
        raise ValueError(f"DistributedStrategy.a_sync_configs: k_steps must be an integer: "
                         f"> 0 for geo, 0 or -1 for async; got {value!r}")
    return value


class DistributedStrategy:
    """Collective fields: ``fuse_grad_size_in_MB`` (bucket size), ``last_comm_group_size_MB``,
    ``find_unused_parameters`` and ``gradient_scale_configs['scale_strategy']`` ("avg",
    the only one: gradients are averaged).

    Parameter-server fields (ignored in collective mode), as Paddle's: ``a_sync`` (default
    True) and ``a_sync_configs['k_steps']`` (default -1) choose the mode: a_sync False is
    "sync", a_sync True with k_steps 0 or -1 is "async", a_sync True with k_steps > 0 is
    "geo" (trainers train locally and send what changed every k_steps steps). The two are
    independent: setting a_sync does not reset k_steps. Paddle's communicator keys of
    a_sync_configs (send_queue_size, thread_pool_size, ...) are accepted and have no effect;
    other keys fail.

    Hybrid parallelism (dygraph, as Paddle's): ``hybrid_configs`` {"dp_degree",
    "mp_degree", "pp_degree", "sharding_degree"} (dp_degree -1: the world size over the
    others), ``pipeline_configs`` {"accumulate_steps", "micro_batch_size",
    "schedule_mode": "1F1B" or "FThenB"} and ``sharding_configs`` {"stage": 1, 2 or 3}.

    Setting a field Paddle has and skiff does not apply (amp, the static meta-optimizers'
    sharding/pipeline/tensor_parallel switches, ...) to anything but its default raises."""

    _UNSUPPORTED = ("amp", "recompute", "sharding", "pipeline", "tensor_parallel", "lamb",
                    "lars", "dgc", "localsgd", "gradient_merge")

    def __init__(self):
        self.fuse_grad_size_in_MB = 25
        self.last_comm_group_size_MB = 1
        self.find_unused_parameters = False
        self.gradient_scale_configs = {"scale_strategy": "avg"}
        self.a_sync = True
        object.__setattr__(self, "_a_sync_configs", {"k_steps": -1})
        object.__setattr__(self, "_hybrid_configs", dict(_HYBRID_DEFAULTS))
        object.__setattr__(self, "_pipeline_configs", dict(_PIPELINE_DEFAULTS))
        object.__setattr__(self, "_sharding_configs", dict(_SHARDING_DEFAULTS))
        for name in self._UNSUPPORTED:
            object.__setattr__(self, name, False)

    def __setattr__(self, name, value):
        if name in self._UNSUPPORTED and value:
            raise ValueError(f"DistributedStrategy.{name}: not supported; skiff's "
                             "collective training is data-parallel only")
        if name == "gradient_scale_configs" and value.get("scale_strategy", "avg") != "avg":
            raise ValueError("DistributedStrategy: gradients are averaged "
                             "(scale_strategy 'avg' is the only one)")
        if name == "a_sync" and not isinstance(value, bool):
            raise TypeError(f"DistributedStrategy.a_sync must be True or False, got {value!r}")
        object.__setattr__(self, name, value)

    @property
    def hybrid_configs(self):
        """A copy: dp_degree, mp_degree, pp_degree, sharding_degree."""
        return dict(self._hybrid_configs)

    @hybrid_configs.setter
    def hybrid_configs(self, configs):
        configs = _checked_configs(configs, self._hybrid_configs, "hybrid_configs")
        for key, value in configs.items():
            _positive_int(value, f"hybrid_configs['{key}']", allow_infer=key == "dp_degree")
        object.__setattr__(self, "_hybrid_configs", configs)

    @property
    def pipeline_configs(self):
        """A copy: accumulate_steps, micro_batch_size, schedule_mode."""
        return dict(self._pipeline_configs)

    @pipeline_configs.setter
    def pipeline_configs(self, configs):
        configs = _checked_configs(configs, self._pipeline_configs, "pipeline_configs")
        for key in ("accumulate_steps", "micro_batch_size"):
            _positive_int(configs[key], f"pipeline_configs['{key}']")
        if configs["schedule_mode"] not in _SCHEDULES:
            raise ValueError(f"DistributedStrategy.pipeline_configs['schedule_mode'] is one of "
                             f"{', '.join(_SCHEDULES)}, got {configs['schedule_mode']!r}")
        object.__setattr__(self, "_pipeline_configs", configs)

    @property
    def sharding_configs(self):
        """A copy: stage (1: optimizer state sharded over the sharding group, 2: and the
        gradients, 3: and the parameters)."""
        return dict(self._sharding_configs)

    @sharding_configs.setter
    def sharding_configs(self, configs):
        configs = _checked_configs(configs, self._sharding_configs, "sharding_configs")
        if configs["stage"] not in (1, 2, 3):
            raise ValueError(f"DistributedStrategy.sharding_configs['stage'] is 1, 2 or 3, got "
                             f"{configs['stage']!r}")
        object.__setattr__(self, "_sharding_configs", configs)

    def degrees(self, world_size):
        """(dp, pp, sharding, mp) for a world of ``world_size`` ranks; ValueError naming
        the degrees when their product is not the world size."""
        c = self._hybrid_configs
        mp, pp, sharding = c["mp_degree"], c["pp_degree"], c["sharding_degree"]
        others = mp * pp * sharding
        dp = c["dp_degree"]
        if dp == -1:
            if world_size % others:
                raise ValueError(f"hybrid_configs: mp_degree {mp} x pp_degree {pp} x "
                                 f"sharding_degree {sharding} = {others} does not divide the "
                                 f"world size {world_size}")
            dp = world_size // others
        if dp * others != world_size:
            raise ValueError(f"hybrid_configs: dp_degree {dp} x mp_degree {mp} x pp_degree {pp} "
                             f"x sharding_degree {sharding} = {dp * others}, but the world has "
                             f"{world_size} ranks")
        return dp, pp, sharding, mp

    @property
    def a_sync_configs(self):
        """A copy of the configuration: k_steps and the no-effect keys set so far."""
        return dict(self._a_sync_configs)

    @a_sync_configs.setter
    def a_sync_configs(self, configs):
        if not isinstance(configs, dict):
            raise TypeError(f"DistributedStrategy.a_sync_configs must be a dict, got "
                            f"{type(configs).__name__}")
        unknown = sorted(k for k in configs if k != "k_steps" and k not in _A_SYNC_NO_EFFECT)
        if unknown:
            raise ValueError(f"DistributedStrategy.a_sync_configs: unknown key(s) "
                             f"{', '.join(map(repr, unknown))}; skiff applies k_steps (and "
                             f"accepts Paddle's {', '.join(_A_SYNC_NO_EFFECT)}, which change "
                             f"nothing here)")
        if "k_steps" in configs:
            _check_k_steps(configs["k_steps"])
        self._a_sync_configs.update(configs)

    def ps_mode(self):
        """(mode, k_steps): "sync", "async" or "geo" from a_sync and k_steps (0 unless
        geo). ValueError for k_steps > 0 without a_sync."""
        k_steps = self._a_sync_configs["k_steps"]
        if not self.a_sync:
            if k_steps > 0:
                raise ValueError(f"DistributedStrategy: a_sync_configs k_steps {k_steps} "
                                 f"(geo mode) needs a_sync=True; a_sync=False is sync mode")
            return "sync", 0
        return ("geo", k_steps) if k_steps > 0 else ("async", 0)
