"""DistributedStrategy: the fields of Paddle's fleet.DistributedStrategy that skiff applies,
for collective data parallelism (bucket sizes) and for the parameter server (its mode)."""

__all__ = ["DistributedStrategy"]

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

    Setting a field Paddle has and skiff does not apply (amp, recompute, sharding,
    pipeline, ...) to anything but its default raises."""

    _UNSUPPORTED = ("amp", "recompute", "sharding", "pipeline", "tensor_parallel", "lamb",
                    "lars", "dgc", "localsgd", "gradient_merge")

    def __init__(self):
        self.fuse_grad_size_in_MB = 25
        self.last_comm_group_size_MB = 1
        self.find_unused_parameters = False
        self.gradient_scale_configs = {"scale_strategy": "avg"}
        self.a_sync = True
        object.__setattr__(self, "_a_sync_configs", {"k_steps": -1})
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
