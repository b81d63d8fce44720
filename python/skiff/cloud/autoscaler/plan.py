"""``plan``: run a policy's steps on a working copy of the state until none applies."""

from . import edl, throughput
from .draft import Draft
from .state import Config

__all__ = ["plan", "POLICIES"]

POLICIES = {"edl": edl.step, "skiff": throughput.step}
"""Each policy's step: one decided change applied to a Draft, answering whether any."""

_MAX_STEPS = 100_000


def plan(state, config=Config()):
    """The actions ``config.policy`` decides for ``state``, in the order decided. Pure: the
    same state (in any order of its nodes, jobs and services) gives the same actions."""
    if config.policy not in POLICIES:
        raise ValueError(f"unknown autoscaler policy {config.policy!r}; "
                         f"known: {', '.join(sorted(POLICIES))}")
    step = POLICIES[config.policy]
    draft = Draft(state, config)
    for _ in range(_MAX_STEPS):
        if not step(draft):
            return list(draft.actions)
    raise RuntimeError(f"autoscaler policy {config.policy!r} did not settle")
