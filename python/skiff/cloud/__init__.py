"""skiff cloud: a job service that runs training programs sent from a terminal, a notebook
or Python, and streams their output back live (docs/cloud.md).

    skiff cloud serve --root DIR                     # the service (HTTP, SQLite, a backend)
    skiff cloud submit train.py --workers 1 --follow # a job, its output live

    from skiff.cloud import Client
    job = Client(url, token).submit("train.py", directory=".")
"""
from .client import Client, CloudError, save_login

__all__ = ["Client", "CloudError", "save_login"]
