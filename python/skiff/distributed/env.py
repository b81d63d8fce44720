"""Where this process stands in a job: the environment the launcher gives each worker
(skiff.distributed.launch), read as Paddle's ParallelEnv reads its own."""
import os

__all__ = ["ParallelEnv"]


def _env_int(names, default):
    for name in names:
        value = os.environ.get(name)
        if value not in (None, ""):
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"skiff.distributed: {name}={value!r} is not an integer") from None
    return default


class ParallelEnv:
    """The worker's rank, world size and job, from the launcher's environment
    (SKIFF_RANK, SKIFF_WORLD_SIZE, SKIFF_LOCAL_RANK, SKIFF_ETCD, SKIFF_JOB_ID; Paddle's
    PADDLE_TRAINER_ID and PADDLE_TRAINERS_NUM are read too). Outside a launched job: rank 0
    of 1."""

    def __init__(self):
        self._rank = _env_int(["SKIFF_RANK", "PADDLE_TRAINER_ID"], 0)
        self._world_size = _env_int(["SKIFF_WORLD_SIZE", "PADDLE_TRAINERS_NUM"], 1)
        self._local_rank = _env_int(["SKIFF_LOCAL_RANK", "PADDLE_LOCAL_RANK"], self._rank)
        self._etcd = os.environ.get("SKIFF_ETCD", "")
        self._job_id = os.environ.get("SKIFF_JOB_ID", "default")
        self._host = os.environ.get("SKIFF_HOST", "127.0.0.1")
        self._timeout = float(os.environ.get("SKIFF_COMM_TIMEOUT", "60"))
        if not 0 <= self._rank < self._world_size:
            raise ValueError(f"skiff.distributed: rank {self._rank} is not in [0, "
                             f"{self._world_size}) (SKIFF_RANK / SKIFF_WORLD_SIZE)")

    @property
    def rank(self):
        return self._rank

    @property
    def world_size(self):
        return self._world_size

    @property
    def local_rank(self):
        return self._local_rank

    @property
    def device_id(self):
        return 0

    @property
    def nranks(self):
        return self._world_size

    @property
    def etcd(self):
        return self._etcd

    @property
    def job_id(self):
        return self._job_id

    @property
    def host(self):
        return self._host

    @property
    def timeout(self):
        return self._timeout

    # Paddle's older names.
    trainer_id = rank
    trainers_num = world_size
    dev_id = device_id
