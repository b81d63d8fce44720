"""The policies a simulation can run, by name: "static" (no autoscaler: jobs start whole,
first come first served), "tiresias" (Tiresias' 2D-LAS), and the autoscaler's "edl" and
"skiff" through ``skiff.cloud.autoscaler.plan``."""
from .. import autoscaler
from ..autoscaler.state import Config
from .fifo import fifo
from .tiresias import Tiresias

__all__ = ["POLICIES", "policy_for"]

POLICIES = ("static", "edl", "skiff", "tiresias")


def policy_for(name, interval, **config):
    """A fresh ``policy(state) -> [Action]`` for ``name``; ``config``: the autoscaler's
    ``Config`` fields besides policy and interval."""
    if name == "static":
        return fifo
    if name == "tiresias":
        return Tiresias()
    if name in ("edl", "skiff"):
        plan = getattr(autoscaler, "plan", None)
        if plan is None:
            raise RuntimeError("skiff.cloud.autoscaler has no plan() yet")
        cfg = Config(policy=name, interval=interval, **config)
        return lambda state: plan(state, cfg)
    raise ValueError(f"unknown policy {name!r} (one of {', '.join(POLICIES)})")
