"""``skiff cloud operator run``: the operator in the foreground until SIGTERM or Ctrl-C,
with the cluster's credentials (the pod's service account, else a kubeconfig)."""
import logging
import os
import signal
import threading

from kubernetes import client as k8s
from kubernetes import config as k8s_config

from ..autoscaler import Config, plan
from .controller import DEFAULT_ETCD, Controller

__all__ = ["run", "api_client"]


def api_client(kubeconfig=None):
    """An ApiClient for ``kubeconfig``, else the pod's service account when in a cluster,
    else ~/.kube/config."""
    configuration = k8s.Configuration()
    if kubeconfig is None and os.environ.get("KUBERNETES_SERVICE_HOST"):
        k8s_config.load_incluster_config(client_configuration=configuration)
    else:
        k8s_config.load_kube_config(config_file=kubeconfig, client_configuration=configuration)
    return k8s.ApiClient(configuration)


def run(namespace=None, kubeconfig=None, policy="skiff", etcd=None):
    """Runs the operator until SIGTERM or SIGINT; returns the exit code."""
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    controller = Controller(api_client(kubeconfig), plan, Config(policy=policy),
                            namespace=namespace, etcd=etcd or DEFAULT_ETCD)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    controller.start()
    logging.info("skiff operator: watching SkiffJobs in %s (policy %s)",
                 namespace or "every namespace", policy)
    stop.wait()
    controller.stop()
    return 0
