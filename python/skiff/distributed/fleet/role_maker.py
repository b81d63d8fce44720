"""Where a process stands in a parameter-server job (Paddle's role makers): a trainer
(Role.WORKER) or a server (Role.SERVER), its index, and the job's servers and trainers.

    role = fleet.PaddleCloudRoleMaker(is_collective=False)    # from the environment
    role = fleet.UserDefinedRoleMaker(current_id=0, role=fleet.Role.SERVER, worker_num=2,
                                      server_endpoints=["127.0.0.1:7001", "127.0.0.1:7002"])
    fleet.init(role)

PaddleCloudRoleMaker reads the variables the launcher (python -m skiff.distributed.launch
--server_num N --trainer_num M) sets, as Paddle's does: TRAINING_ROLE (TRAINER or PSERVER),
PADDLE_PSERVERS_IP_PORT_LIST (the servers, "host:port" comma-separated, in shard order),
PADDLE_TRAINERS_NUM; a trainer's PADDLE_TRAINER_ID; a server's POD_IP and PADDLE_PORT (its
endpoint, which must be in the list); PADDLE_TRAINER_ENDPOINTS when set.
"""
import os

__all__ = ["Role", "PaddleCloudRoleMaker", "UserDefinedRoleMaker", "parse_endpoints"]


class Role:
    """A process's part in a parameter-server job (Paddle's values)."""
    WORKER = 1
    SERVER = 2


def parse_endpoints(text, what):
    """``text`` ("h:p,h:p" or a list of "h:p") as a list of "host:port" strings; ValueError
    naming ``what`` for an empty list, a malformed entry or a repeated one."""
    items = text.split(",") if isinstance(text, str) else list(text or [])
    endpoints = [str(e).strip() for e in items if str(e).strip()]
    if not endpoints:
        raise ValueError(f"{what}: no endpoints in {text!r}")
    for e in endpoints:
        host, _, port = e.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{what}: {e!r} is not HOST:PORT (port in 1..65535)")
    repeated = sorted({e for e in endpoints if endpoints.count(e) > 1})
    if repeated:
        raise ValueError(f"{what}: {', '.join(repeated)} given more than once")
    return endpoints


class _PsRoleMaker:
    """The parts every parameter-server role maker holds, checked."""

    is_collective = False

    def _set(self, role, current_id, worker_num, server_endpoints, worker_endpoints, what):
        if role not in (Role.WORKER, Role.SERVER):
            raise ValueError(f"{what}: role must be Role.WORKER or Role.SERVER, got {role!r}")
        self._role = role
        self._server_endpoints = parse_endpoints(server_endpoints, f"{what}: server endpoints")
        self._worker_endpoints = (parse_endpoints(worker_endpoints, f"{what}: worker endpoints")
                                  if worker_endpoints else [])
        if isinstance(worker_num, bool) or not isinstance(worker_num, int) or worker_num < 1:
            raise ValueError(f"{what}: the number of trainers must be a positive integer, got "
                             f"{worker_num!r}")
        if self._worker_endpoints and len(self._worker_endpoints) != worker_num:
            raise ValueError(f"{what}: {len(self._worker_endpoints)} worker endpoints for "
                             f"{worker_num} trainers")
        self._worker_num = worker_num
        count = worker_num if role == Role.WORKER else len(self._server_endpoints)
        kind = "trainer" if role == Role.WORKER else "server"
        if isinstance(current_id, bool) or not isinstance(current_id, int) or \
                not 0 <= current_id < count:
            raise ValueError(f"{what}: {kind} index {current_id!r} is not in [0, {count})")
        self._current_id = current_id

    def is_worker(self):
        return self._role == Role.WORKER

    def is_server(self):
        return self._role == Role.SERVER

    def is_first_worker(self):
        return self.is_worker() and self._current_id == 0

    def worker_index(self):
        """This trainer's index (0 on a server)."""
        return self._current_id if self.is_worker() else 0

    def server_index(self):
        """This server's index, its shard (0 on a trainer)."""
        return self._current_id if self.is_server() else 0

    def worker_num(self):
        return self._worker_num

    def server_num(self):
        return len(self._server_endpoints)

    def server_endpoints(self):
        return list(self._server_endpoints)

    def worker_endpoints(self):
        return list(self._worker_endpoints)

    def current_endpoint(self):
        """A server's "host:port" (where it serves); a trainer's entry of the worker
        endpoints, or "" without them."""
        if self.is_server():
            return self._server_endpoints[self._current_id]
        return self._worker_endpoints[self._current_id] if self._worker_endpoints else ""

    def to_string(self):
        kind = "trainer" if self.is_worker() else "server"
        return (f"{kind} {self._current_id}: {self._worker_num} trainer(s), servers "
                f"{','.join(self._server_endpoints)}")

    def __repr__(self):
        return f"{type(self).__name__}({self.to_string()})"


def _env(name, what, hint=""):
    value = os.environ.get(name, "").strip()
    if not value:
        raise ValueError(f"{what}: {name} is not set{hint}")
    return value


def _env_int(name, what):
    value = _env(name, what)
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{what}: {name}={value!r} is not an integer") from None


class PaddleCloudRoleMaker(_PsRoleMaker):
    """The role from the environment (see the module's docstring). ``is_collective=True``
    makes a collective role maker: fleet.init then runs collective mode, whose place comes
    from the launcher's SKIFF_/PADDLE_ variables (skiff.distributed.ParallelEnv). Other
    keyword arguments of Paddle's (init_gloo, path, ...) are accepted and unused."""

    def __init__(self, is_collective=False, **kwargs):
        self.is_collective = bool(is_collective)
        if self.is_collective:
            return
        what = "PaddleCloudRoleMaker"
        role_name = os.environ.get("TRAINING_ROLE", "").strip()
        if not role_name:
            raise ValueError(
                f"{what}: this process is not part of a parameter-server job (TRAINING_ROLE is "
                f"not set; start the job with python -m skiff.distributed.launch --server_num N "
                f"--trainer_num M script.py, or give fleet.init a UserDefinedRoleMaker); "
                f"without one, only collective mode (is_collective=True) runs")
        if role_name not in ("TRAINER", "PSERVER"):
            raise ValueError(f"{what}: TRAINING_ROLE must be TRAINER or PSERVER, got "
                             f"{role_name!r}")
        servers = parse_endpoints(_env("PADDLE_PSERVERS_IP_PORT_LIST", what,
                                       " (the servers' HOST:PORT list)"),
                                  f"{what}: PADDLE_PSERVERS_IP_PORT_LIST")
        trainers = _env_int("PADDLE_TRAINERS_NUM", what)
        workers = os.environ.get("PADDLE_TRAINER_ENDPOINTS", "").strip()
        if role_name == "TRAINER":
            self._set(Role.WORKER, _env_int("PADDLE_TRAINER_ID", what), trainers, servers,
                      workers, what)
            return
        endpoint = f"{_env('POD_IP', what)}:{_env_int('PADDLE_PORT', what)}"
        if endpoint not in servers:
            raise ValueError(f"{what}: this server's POD_IP:PADDLE_PORT {endpoint} is not in "
                             f"PADDLE_PSERVERS_IP_PORT_LIST {','.join(servers)}")
        self._set(Role.SERVER, servers.index(endpoint), trainers, servers, workers, what)


class UserDefinedRoleMaker(_PsRoleMaker):
    """A role given in code: ``current_id`` (this trainer's or server's index), ``role``
    (Role.WORKER or Role.SERVER), ``worker_num`` trainers, ``server_endpoints`` ("host:port"
    list, in shard order), optional ``worker_endpoints``. ``init_gloo`` is accepted and
    unused; is_collective=True is refused (collective mode takes its place from the
    launcher: fleet.init(is_collective=True))."""

    def __init__(self, current_id=0, role=Role.WORKER, worker_num=None, server_endpoints=None,
                 worker_endpoints=None, is_collective=False, init_gloo=False):
        what = "UserDefinedRoleMaker"
        if is_collective:
            raise ValueError(f"{what}: collective mode takes each worker's place from the "
                             f"launcher; use fleet.init(is_collective=True)")
        if server_endpoints is None:
            raise ValueError(f"{what}: give server_endpoints (the servers' HOST:PORT list)")
        if worker_num is None:
            raise ValueError(f"{what}: give worker_num (the number of trainers)")
        self._set(role, current_id, worker_num, server_endpoints, worker_endpoints, what)
