"""The job service's HTTP server (aiohttp): the web page (``/`` and ``/static/<file>`` from
the static/ folder beside this module; loading it needs no token) and the JSON API under
/api/ (docs/cloud.md), each call authenticated by its user's token (``Authorization: Bearer
TOKEN``; a log stream also takes ``?token=``, as a browser's EventSource cannot set
headers). Errors come back as {"error": message} with 400, 401, 403, 404 or 413.

    serve(root, host="127.0.0.1", port=8050, slots=None)   # blocks until SIGTERM / Ctrl-C;
                                                            # prints the URL (port 0: free)
    app = make_app(service)                                 # the aiohttp Application
"""
import asyncio
import collections
import json
import logging
import os
import shutil

from aiohttp import web

from ..utils.serving import serve_until_stopped
from .autoscaler import Config
from .backend import LocalBackend
from .boards import BoardError, Boards
from .service import JobService, Quota, ServiceError
from .uploads import read_upload
from .store import FINAL_STATES

__all__ = ["serve", "make_app"]

_log = logging.getLogger("skiff.cloud")
_SERVICE = web.AppKey("cloud_service", JobService)
_WATCHES = web.AppKey("cloud_watches", dict)
_BOARDS = web.AppKey("cloud_boards", Boards)
TICK_SECONDS = 0.05
KEEPALIVE_SECONDS = 15.0
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
_JOB_FIELDS = ("id", "name", "user", "state", "priority", "slots", "workers", "submitted",
               "started", "finished", "exit_code", "reason", "log_tail", "spec")


def _job_json(job, events=None):
    out = {k: job[k] for k in _JOB_FIELDS}
    out["backend"] = (job["runner"] or {}).get("backend")
    if events is not None:
        out["events"] = events
    return out


def _error(status, message):
    return web.json_response({"error": message}, status=status)


@web.middleware
async def _auth_and_errors(request, handler):
    if request.path.startswith("/api/") and request.path != "/api/health":
        header = request.headers.get("Authorization", "")
        token = header[7:].strip() if header.startswith("Bearer ") else request.query.get(
            "token", "")
        user = request.app[_SERVICE].store.user_by_token(token)
        if user is None:
            return _error(401, "a valid token is needed (Authorization: Bearer TOKEN; "
                               "`skiff cloud token create USER` makes one)")
        request["user"] = user
    try:
        return await handler(request)
    except ServiceError as e:
        return _error(e.status, e.message)
    except web.HTTPException as e:
        if request.path.startswith("/api/") and e.status >= 400:
            return _error(e.status, e.reason)
        raise
    except Exception as e:  # one failing request must not take the service down
        _log.exception("request %s failed", request.path[:200])
        return _error(500, f"internal error: {e}")


def _job_id(request):
    text = request.match_info["job"]
    if not text.isdigit() or len(text) > 18:
        raise ServiceError(400, f"a job id is a number, got {text[:40]!r}")
    return int(text)


async def page_file(request):
    """A file of the page (index.html for ``/``), only from inside STATIC_DIR."""
    name = request.match_info.get("name", "index.html")
    root = os.path.realpath(STATIC_DIR)
    path = os.path.realpath(os.path.join(root, name.replace("\x00", "")))
    if "\x00" in name or not path.startswith(root + os.sep) or not os.path.isfile(path):
        raise web.HTTPNotFound(text=f"no page file {name[:200]!r}\n")
    return web.FileResponse(path, headers={"Cache-Control": "no-cache"})


class _Watch:
    """Wakes a job's log followers when its log grows or its state changes, and keeps the
    last blocks of its log encoded as events, so that many followers at the same place
    cost one read and one encoding."""

    BLOCK = 1000   # lines per cached block
    BLOCKS = 16    # blocks kept

    def __init__(self):
        self.event = asyncio.Event()
        self.followers = 0
        self._blocks = collections.OrderedDict()  # block number -> its events' bytes

    def notify(self):
        self.event.set()
        self.event = asyncio.Event()

    def events(self, index, first):
        """(bytes of the events from line ``first`` on, the next line): a whole cached
        block when ``first`` starts one that is complete, else the lines there are."""
        block, offset = divmod(first, self.BLOCK)
        end = (block + 1) * self.BLOCK
        if offset == 0 and index.lines >= end:
            data = self._blocks.get(block)
            if data is None:
                data = _encode(index.read(first, self.BLOCK))
                self._blocks[block] = data
                while len(self._blocks) > self.BLOCKS:
                    self._blocks.popitem(last=False)
            return data, end
        lines = index.read(first, end - first)
        return _encode(lines), (lines[-1][0] + 1 if lines else first)


def _encode(lines):
    return "".join(f"id: {n}\ndata: {text}\n\n" for n, text in lines).encode()


async def health(request):
    return web.json_response({"ok": True})


async def whoami(request):
    user = request["user"]
    return web.json_response({"name": user["name"], "admin": user["admin"]})


async def list_jobs(request):
    service, user = request.app[_SERVICE], request["user"]
    q = request.query
    states = [s for s in q.get("state", "").split(",") if s] or None
    owner = q.get("user") or None
    if not user["admin"]:
        if owner not in (None, user["name"]):
            raise ServiceError(403, "only an admin sees other users' jobs")
        owner = user["name"]
    try:
        limit = min(int(q.get("limit", 100)), 1000)
        before = int(q["before"]) if "before" in q else None
    except ValueError:
        raise ServiceError(400, "limit and before must be integers") from None
    jobs = service.store.jobs(user=owner, states=states, limit=limit, before=before)
    return web.json_response({"jobs": [_job_json(j) for j in jobs]})


async def submit(request):
    service = request.app[_SERVICE]
    spec, archive, folder = await read_upload(request, service)
    try:
        loop = asyncio.get_running_loop()
        prepared = await loop.run_in_executor(None, service.prepare, spec, archive)
        job = service.commit(request["user"], prepared)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    return web.json_response(_job_json(job), status=201)


async def get_job(request):
    service = request.app[_SERVICE]
    job = service.get(request["user"], _job_id(request))
    out = _job_json(job, service.store.events(job["id"]))
    out["usage"] = service.usage(job["id"])
    return web.json_response(out)


async def cancel_job(request):
    service = request.app[_SERVICE]
    job = service.cancel(request["user"], _job_id(request))
    return web.json_response(_job_json(job))


async def read_log(request):
    service = request.app[_SERVICE]
    job = service.get(request["user"], _job_id(request))
    try:
        first = int(request.query.get("first", 0))
        count = min(int(request.query.get("count", 1000)), 10000)
    except ValueError:
        raise ServiceError(400, "first and count must be integers") from None
    index = service.log_index(job["id"])
    lines = index.read(first, count)
    return web.json_response({"lines": lines, "next": lines[-1][0] + 1 if lines else first,
                              "total": index.lines,
                              "done": job["state"] in FINAL_STATES and
                              (lines[-1][0] + 1 if lines else first) >= index.lines})


async def stream_log(request):
    """Server-Sent Events: one event per line (id = its number, from Last-Event-ID + 1 or
    ?first=N on), then an "end" event with the job's final state."""
    service, watches = request.app[_SERVICE], request.app[_WATCHES]
    job_id = service.get(request["user"], _job_id(request))["id"]
    try:
        last = request.headers.get("Last-Event-ID")
        first = int(last) + 1 if last is not None else int(request.query.get("first", 0))
    except ValueError:
        raise ServiceError(400, "Last-Event-ID and first must be line numbers") from None
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no"})
    await response.prepare(request)
    watch = watches.setdefault(job_id, _Watch())
    watch.followers += 1
    try:
        number = max(0, first)
        while True:
            changed = watch.event
            index = service.log_index(job_id)
            data, after = watch.events(index, number)
            if data:
                await response.write(data)
                number = after
                continue
            job = service.store.job(job_id)
            if job["state"] in FINAL_STATES:
                if service.log_index(job_id).lines > number:
                    continue
                end = {"state": job["state"], "exit_code": job["exit_code"],
                       "reason": job["reason"], "lines": number}
                await response.write(f"event: end\ndata: {json.dumps(end)}\n\n".encode())
                break
            try:
                await asyncio.wait_for(changed.wait(), KEEPALIVE_SECONDS)
            except asyncio.TimeoutError:
                await response.write(b": keep-alive\n\n")
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        watch.followers -= 1
        if watch.followers == 0 and watches.get(job_id) is watch:
            del watches[job_id]
    return response


async def list_artifacts(request):
    service = request.app[_SERVICE]
    job = service.get(request["user"], _job_id(request))
    _, files = service.kept_files(job)
    return web.json_response({"files": [{"path": p, "size": s} for p, s in files]})


async def get_artifact(request):
    service = request.app[_SERVICE]
    job = service.get(request["user"], _job_id(request))
    wanted = request.match_info["path"]
    work, files = service.kept_files(job)
    if wanted not in {p for p, _ in files}:
        raise ServiceError(404, f"job {job['id']} keeps no file {wanted[:200]!r}")
    path = os.path.realpath(os.path.join(work, wanted))
    if os.path.commonpath([path, work]) != work:
        raise ServiceError(404, f"job {job['id']} keeps no file {wanted[:200]!r}")
    return web.FileResponse(path)


async def open_board(request):
    """Starts skiff board on the job's board_logdir (or finds it running): {"url"}."""
    service = request.app[_SERVICE]
    job = service.get(request["user"], _job_id(request))
    logdir = job["spec"].get("board_logdir")
    if not logdir:
        raise ServiceError(400, f"job {job['id']} has no board_logdir")
    jobdir = service.jobdir(job["id"])
    try:
        url = await asyncio.get_running_loop().run_in_executor(
            None, request.app[_BOARDS].open, job["id"], os.path.join(jobdir, "work", logdir),
            os.path.join(jobdir, "board.log"))
    except BoardError as e:
        raise ServiceError(409, f"job {job['id']}: {e}") from None
    return web.json_response({"url": url})


async def list_services(request):
    """The services the autoscaler keeps room for: their demand and the pods granted."""
    return web.json_response({"services": request.app[_SERVICE].store.services()})


async def put_service(request):
    """{"demand": PODS, "cpus": PER_POD} for service NAME (admins); answers it with
    ``granted``, the pods that have room now (more follow as elastic jobs shrink)."""
    try:
        body = await request.json()
    except ValueError:
        raise ServiceError(400, "the body must be JSON: {\"demand\": N, \"cpus\": C}") from None
    if not isinstance(body, dict) or set(body) - {"demand", "cpus"} or "demand" not in body:
        raise ServiceError(400, f"a service is {{\"demand\": N, \"cpus\": C}}, got "
                                f"{str(body)[:200]}")
    service = request.app[_SERVICE].set_service(request["user"], request.match_info["name"],
                                                body["demand"], body.get("cpus", 1))
    return web.json_response(service)


async def delete_service(request):
    request.app[_SERVICE].remove_service(request["user"], request.match_info["name"])
    return web.json_response({"removed": request.match_info["name"]})


async def _ticker(app):
    """Moves jobs forward and wakes the followers of logs that grew."""
    service, watches = app[_SERVICE], app[_WATCHES]
    seen = {}
    while True:
        try:
            changed = set(service.tick())
            for job_id, watch in list(watches.items()):
                lines = service.log_index(job_id).lines
                if job_id in changed or seen.get(job_id) != lines:
                    seen[job_id] = lines
                    watch.notify()
            for job_id in list(seen):
                if job_id not in watches:
                    del seen[job_id]
            app[_BOARDS].reap()
        except Exception:  # a failing tick must not stop the next ones
            _log.exception("tick failed")
        await asyncio.sleep(TICK_SECONDS)


def make_app(service, boards=None):
    app = web.Application(middlewares=[_auth_and_errors])
    app[_SERVICE] = service
    app[_WATCHES] = {}
    app[_BOARDS] = boards or Boards()
    app.router.add_get("/", page_file)
    app.router.add_get("/static/{name:.+}", page_file)
    app.router.add_get("/api/health", health)
    app.router.add_get("/api/whoami", whoami)
    app.router.add_get("/api/jobs", list_jobs)
    app.router.add_post("/api/jobs", submit)
    app.router.add_get("/api/jobs/{job}", get_job)
    app.router.add_post("/api/jobs/{job}/cancel", cancel_job)
    app.router.add_get("/api/jobs/{job}/log", read_log)
    app.router.add_get("/api/jobs/{job}/log/stream", stream_log)
    app.router.add_get("/api/jobs/{job}/artifacts", list_artifacts)
    app.router.add_get("/api/jobs/{job}/artifacts/{path:.+}", get_artifact)
    app.router.add_post("/api/jobs/{job}/board", open_board)
    app.router.add_get("/api/services", list_services)
    app.router.add_put("/api/services/{name}", put_service)
    app.router.add_delete("/api/services/{name}", delete_service)

    async def start_ticker(app):
        service.recover()
        task = asyncio.get_running_loop().create_task(_ticker(app))
        yield
        task.cancel()
        app[_BOARDS].close()

    app.cleanup_ctx.append(start_ticker)
    return app


def serve(root, host="127.0.0.1", port=8050, slots=None, quota=None, max_upload=None,
          log_limit=None, line_limit=None, on_ready=None, autoscale=Config()):
    """Serves the job service on ``root`` until SIGTERM or Ctrl-C (the jobs go on
    running); prints the URL. Raises OSError if the port is taken. ``autoscale``: the
    autoscaler's Config (None: elastic jobs keep the workers they start with)."""
    options = {} if max_upload is None else {"max_upload": max_upload}
    limits = {k: v for k, v in (("log_limit", log_limit), ("line_limit", line_limit)) if v}
    service = JobService(root, LocalBackend(slots=slots, **limits), quota=quota or Quota(),
                         autoscale=autoscale, **options)

    try:
        serve_until_stopped(make_app(service), host, port,
                            f"skiff cloud: serving {service.root}", on_ready=on_ready)
    finally:
        service.close()
