"""A SkiffJob's spec read and checked: the operator's own copy of the rules the CRD's
schema states (the API server checks them too, but its CEL rules need a live server, and a
job written before the rules existed must not crash the operator)."""
import dataclasses

from ..autoscaler.state import Resources
from .quantity import parse_quantity, to_resources

__all__ = ["GROUP", "VERSION", "PLURAL", "KIND", "JobSpec", "InvalidJob", "read_spec"]

GROUP, VERSION, PLURAL, KIND = "skiff.dev", "v1alpha1", "skiffjobs", "SkiffJob"
POLICIES = ("edl", "skiff")
MAX_NAME = 50


class InvalidJob(ValueError):
    """A SkiffJob whose spec breaks the CRD's rules; its message says which."""


@dataclasses.dataclass(frozen=True)
class JobSpec:
    """What the operator uses of a SkiffJob's spec, defaults filled in."""

    image: str
    command: tuple
    min_workers: int
    max_workers: int
    nproc_per_worker: int = 1
    requests: tuple = ()   # ((resource, quantity), ...) as written
    limits: tuple = ()
    priority: int = 0
    priority_class: str = ""
    elastic: bool = True
    policy: str = ""
    max_restarts: int = 3
    etcd: str = ""
    env: tuple = ()        # ((name, value), ...)

    @property
    def worker(self):
        """What one worker asks for, as the autoscaler counts it."""
        return to_resources(dict(self.requests)) if self.requests else Resources()

    @property
    def bounds(self):
        """(min, max) workers the autoscaler may give it: exactly min when not elastic."""
        return (self.min_workers, self.max_workers if self.elastic else self.min_workers)


def _int(path, value, low):
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidJob(f"{path} must be an integer, got {value!r}")
    if value < low:
        raise InvalidJob(f"{path} must be at least {low}, got {value}")
    return value


def read_spec(job):
    """The JobSpec of a SkiffJob object (a dict as the API returns it); raises InvalidJob."""
    name = (job.get("metadata") or {}).get("name", "")
    if len(name) > MAX_NAME:
        raise InvalidJob(f"metadata.name {name!r} is longer than {MAX_NAME} characters (its "
                         f"workers' host names, NAME-worker-INDEX, must fit in 63)")
    spec = job.get("spec") or {}
    image = spec.get("image")
    if not isinstance(image, str) or not image:
        raise InvalidJob("spec.image is required")
    command = spec.get("command")
    if not isinstance(command, list) or not command or not all(
            isinstance(c, str) for c in command):
        raise InvalidJob("spec.command must be a non-empty list of strings (the training "
                         "script and its arguments)")
    workers = spec.get("workers") or {}
    low = _int("spec.workers.min", workers.get("min", 1), 1)
    high = _int("spec.workers.max", workers.get("max", low), 1)
    if high < low:
        raise InvalidJob(f"spec.workers: min {low} is above max {high}")
    resources = spec.get("resources") or {}
    requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
    for name, amount in list(requests.items()) + list(limits.items()):
        try:
            if parse_quantity(amount) < 0:
                raise ValueError
        except ValueError:
            raise InvalidJob(f"spec.resources: {name} {amount!r} is not a quantity "
                             f"of at least 0") from None
    policy = spec.get("policy", "")
    if policy and policy not in POLICIES:
        raise InvalidJob(f"spec.policy must be one of {', '.join(POLICIES)}, got {policy!r}")
    env = spec.get("env") or []
    return JobSpec(
        image=image, command=tuple(command), min_workers=low, max_workers=high,
        nproc_per_worker=_int("spec.nprocPerWorker", spec.get("nprocPerWorker", 1), 1),
        requests=tuple(sorted((k, str(v)) for k, v in requests.items())),
        limits=tuple(sorted((k, str(v)) for k, v in limits.items())),
        priority=_int("spec.priority", spec.get("priority", 0), -(2 ** 31)),
        priority_class=spec.get("priorityClassName", "") or "",
        elastic=bool(spec.get("elastic", True)), policy=policy,
        max_restarts=_int("spec.maxRestarts", spec.get("maxRestarts", 3), 0),
        etcd=spec.get("etcd", "") or "",
        env=tuple((e["name"], str(e.get("value", ""))) for e in env))
