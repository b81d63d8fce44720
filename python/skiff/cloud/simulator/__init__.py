"""The cluster simulator: elastic training jobs beside services on simulated nodes, driven
by the autoscaler's ``plan`` (or a baseline scheduler), event by event.

    from skiff.cloud.simulator import Simulation, summarize, edl
    nodes, jobs, services, horizon = edl.nginx_case(elastic=True)
    run = Simulation(nodes, jobs, services, policy=policy_for("edl", 5.0), horizon=horizon).run()
    print(summarize(run)["utilisation"])

``skiff cloud simulate edl|pollux`` runs the published experiments (docs/simulator.md)."""
from . import edl, pollux
from .engine import Run, Simulation, SimulationError
from .policies import POLICIES, policy_for
from .report import summarize
from .tiresias import Tiresias
from .workload import JobSpec, NodeSpec, ServiceSpec, linear_rate

__all__ = ["Simulation", "SimulationError", "Run", "summarize", "policy_for", "POLICIES",
           "Tiresias", "JobSpec", "NodeSpec", "ServiceSpec", "linear_rate", "edl", "pollux"]
