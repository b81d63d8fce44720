"""The autoscaler: cluster state in, scaling actions out, nothing else (no I/O, no clock,
no randomness: the same state gives the same actions). Used alike by the Kubernetes
operator, the job service's local backend and the simulator.

    from skiff.cloud.autoscaler import plan, ClusterState, Config
    actions = plan(state, Config(policy="edl"))   # [Action(job, delta, node, ...), ...]

Policies: "edl" (EDL's published policy, exactly) and "skiff" (see docs/edl.md)."""
from .plan import plan
from .state import Action, ClusterState, Config, Job, Node, Resources, Service

__all__ = ["plan", "Action", "ClusterState", "Config", "Job", "Node", "Resources", "Service"]
