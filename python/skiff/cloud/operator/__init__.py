"""skiff's Kubernetes operator for elastic training jobs (docs/kubernetes.md): SkiffJob
custom resources become worker pods that run ``skiff launch``; skiff's autoscaler decides
how many each job gets.

    python -m skiff.cloud operator run [--namespace NS] [--kubeconfig F] [--policy edl|skiff]

The parts: spec.py (a SkiffJob's spec, checked), objects.py (the pods and Service it
creates), reconcile.py (one job's reconcile, a pure function), cluster.py (the autoscaler's
view of the cluster), controller.py (the watch-and-reconcile loop), main.py (the command)."""
from .objects import job_service, worker_pod
from .reconcile import Operation, reconcile
from .spec import InvalidJob, read_spec
