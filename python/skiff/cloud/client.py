"""The job service's Python client (the standard library's HTTP only).

    from skiff.cloud import Client
    c = Client("http://127.0.0.1:8050", token)          # or from the environment / login
    job = c.submit("train.py", args=["--epochs", "3"], directory=".", workers=1, nproc=2)
    for number, line in c.follow(job["id"]):             # live, resuming after a dropped
        print(line)                                      # connection where it stopped
    c.job(job["id"])["state"]                            # "succeeded"

The server and token come from the arguments, else SKIFF_CLOUD_URL / SKIFF_CLOUD_TOKEN,
else the file ``skiff cloud login`` writes (~/.config/skiff/cloud.json)."""
import http.client
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

from .archive import pack
from .store import FINAL_STATES

__all__ = ["Client", "CloudError", "config_path", "save_login"]


class CloudError(RuntimeError):
    """A request the service refused (``status``: the HTTP status; 0: not reachable)."""

    def __init__(self, status, message):
        super().__init__(f"{message} (HTTP {status})" if status else message)
        self.status, self.message = status, message


def config_path():
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "skiff", "cloud.json")


def save_login(server, token):
    """Writes the server and token for later commands (readable by this user only)."""
    path = config_path()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump({"server": server, "token": token}, f)
    return path


def _saved_login():
    try:
        with open(config_path()) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _multipart(fields):
    """(content type, body) of a multipart/form-data request; ``fields`` maps a name to
    (filename or None, bytes, content type)."""
    boundary = uuid.uuid4().hex
    chunks = []
    for name, (filename, data, ctype) in fields.items():
        disposition = f'form-data; name="{name}"'
        if filename:
            disposition += f'; filename="{filename}"'
        chunks.append(f"--{boundary}\r\nContent-Disposition: {disposition}\r\n"
                      f"Content-Type: {ctype}\r\n\r\n".encode())
        chunks.append(data)
        chunks.append(b"\r\n")
    chunks.append(f"--{boundary}--\r\n".encode())
    return f"multipart/form-data; boundary={boundary}", b"".join(chunks)


class Client:
    def __init__(self, server=None, token=None, timeout=30.0):
        saved = _saved_login()
        self.server = (server or os.environ.get("SKIFF_CLOUD_URL") or saved.get("server")
                       or "http://127.0.0.1:8050").rstrip("/")
        self.token = token or os.environ.get("SKIFF_CLOUD_TOKEN") or saved.get("token")
        if not self.token:
            raise CloudError(0, "no token: pass --token, set SKIFF_CLOUD_TOKEN or run "
                                "`skiff cloud login`")
        self.timeout = timeout

    def _open(self, method, path, body=None, content_type=None, query=None, headers=None,
              timeout=None):
        url = self.server + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        request = urllib.request.Request(url, data=body, method=method)
        request.add_header("Authorization", f"Bearer {self.token}")
        if content_type:
            request.add_header("Content-Type", content_type)
        for key, value in (headers or {}).items():
            request.add_header(key, value)
        try:
            return urllib.request.urlopen(request, timeout=timeout or self.timeout)
        except urllib.error.HTTPError as e:
            try:
                message = json.loads(e.read()).get("error", e.reason)
            except ValueError:
                message = e.reason
            raise CloudError(e.code, message) from None
        except urllib.error.URLError as e:
            raise CloudError(0, f"cannot reach the service at {self.server}: {e.reason}") from None
        except (OSError, http.client.HTTPException) as e:  # the connection dropped
            raise CloudError(0, f"lost the connection to {self.server}: {e}") from None

    def _json(self, method, path, body=None, content_type=None, query=None):
        with self._open(method, path, body, content_type, query) as response:
            return json.load(response)

    # ---- verbs

    def whoami(self):
        return self._json("GET", "/api/whoami")

    def submit(self, script=None, args=(), directory=".", module=None, workers=1, nproc=1,
               cpus=1, priority=0, max_run_time=None, env=None, keep=(), board_logdir=None,
               name=None, program=None):
        """Sends ``directory`` (packed) and the job's spec; returns the queued job. The job
        runs ``script`` (a path in ``directory``), ``module`` (python -m) or ``program``
        (a saved .skmodel in ``directory``, run by skiff run with ``args``)."""
        spec = {"args": [str(a) for a in args], "workers": str(workers), "nproc": nproc,
                "cpus": cpus, "priority": priority, "env": dict(env or {}), "keep": list(keep)}
        if script is not None:
            spec["script"] = script
        if module is not None:
            spec["module"] = module
        if program is not None:
            spec["program"] = program
        for key, value in (("max_run_time", max_run_time), ("board_logdir", board_logdir),
                           ("name", name)):
            if value is not None:
                spec[key] = value
        fields = {"spec": (None, json.dumps(spec).encode(), "application/json")}
        if directory is not None:
            fields["archive"] = ("work.tar.gz", pack(directory), "application/gzip")
        ctype, body = _multipart(fields)
        return self._json("POST", "/api/jobs", body, ctype)

    def jobs(self, state=None, user=None, limit=100):
        query = {"limit": limit}
        if state:
            query["state"] = ",".join(state) if isinstance(state, (list, tuple)) else state
        if user:
            query["user"] = user
        return self._json("GET", "/api/jobs", query=query)["jobs"]

    def job(self, job_id):
        return self._json("GET", f"/api/jobs/{int(job_id)}")

    def cancel(self, job_id):
        return self._json("POST", f"/api/jobs/{int(job_id)}/cancel", b"")

    def log(self, job_id, first=0, count=1000):
        """{"lines": [[number, text], ...], "next", "total", "done"}."""
        return self._json("GET", f"/api/jobs/{int(job_id)}/log",
                          query={"first": first, "count": count})

    def follow(self, job_id, first=0, reconnect_for=120.0):
        """Yields (number, line) as the job prints, until it ends; returns (as the
        generator's value) the end event {"state", "exit_code", "reason", "lines"}. A
        dropped connection (the service restarting) is resumed from the next line,
        trying for ``reconnect_for`` seconds."""
        next_line = first
        down_since = None
        while True:
            headers = {"Accept": "text/event-stream"}
            if next_line > 0:
                headers["Last-Event-ID"] = str(next_line - 1)
            try:
                response = self._open("GET", f"/api/jobs/{int(job_id)}/log/stream",
                                      headers=headers, timeout=60.0)
            except CloudError as e:
                if e.status != 0:
                    raise
                down_since = down_since or time.monotonic()
                if time.monotonic() - down_since > reconnect_for:
                    raise
                time.sleep(0.2)
                continue
            down_since = None
            try:
                with response:
                    for event, data, event_id in _events(response):
                        if event == "end":
                            return json.loads(data)
                        next_line = int(event_id) + 1
                        yield next_line - 1, data
            except (OSError, ValueError, http.client.HTTPException):
                pass  # the connection dropped: resume from next_line
            down_since = down_since or time.monotonic()

    def wait(self, job_id, timeout=None, poll=0.2):
        """The job once it is final (polling)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            job = self.job(job_id)
            if job["state"] in FINAL_STATES:
                return job
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} is still {job['state']} after {timeout} s")
            time.sleep(poll)

    def board(self, job_id):
        """The URL of skiff board on the job's board_logdir (the service starts it)."""
        return self._json("POST", f"/api/jobs/{int(job_id)}/board", b"")["url"]

    def services(self):
        """The services the autoscaler keeps room for (demand, cpus, granted)."""
        return self._json("GET", "/api/services")["services"]

    def set_service(self, name, demand, cpus=1.0):
        """Declares service ``name``'s demand (pods of ``cpus``; an admin's call); returns
        it with ``granted``, the pods that have room now."""
        body = json.dumps({"demand": int(demand), "cpus": cpus}).encode()
        return self._json("PUT", f"/api/services/{urllib.parse.quote(name, safe='')}", body,
                          "application/json")

    def remove_service(self, name):
        return self._json("DELETE", f"/api/services/{urllib.parse.quote(name, safe='')}")

    def artifacts(self, job_id):
        return self._json("GET", f"/api/jobs/{int(job_id)}/artifacts")["files"]

    def download(self, job_id, path, dest):
        """Writes the kept file ``path`` of the job to ``dest``; returns dest."""
        quoted = urllib.parse.quote(path)
        with self._open("GET", f"/api/jobs/{int(job_id)}/artifacts/{quoted}",
                        timeout=300.0) as response:
            os.makedirs(os.path.dirname(os.path.abspath(dest)), exist_ok=True)
            with open(dest, "wb") as f:
                while True:
                    chunk = response.read(1 << 20)
                    if not chunk:
                        return dest
                    f.write(chunk)


def _events(response):
    """(event, data, id) of a text/event-stream, as its events complete."""
    event, data, event_id = "message", [], None
    for raw in response:
        line = raw.decode("utf-8").rstrip("\r\n")
        if not line:
            if data:
                yield event, "\n".join(data), event_id
            event, data = "message", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if field == "data":
            data.append(value)
        elif field == "event":
            event = value
        elif field == "id":
            event_id = value
