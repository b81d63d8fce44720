"""The board's HTTP server (aiohttp): the page (``/`` and ``/static/<file>`` from the
static/ folder beside this module, ``/static/plotly.min.js`` from the installed plotly
package) and the JSON API of api.py under ``/api/``. Errors come back as
{"error": message} with 400 or 404.

    serve(logdir, host="127.0.0.1", port=8040)      # blocks until Ctrl-C or SIGTERM;
                                                    # port 0 picks a free port; prints the URL
    url, stop = start_in_thread(logdir, host="127.0.0.1", port=0, reload_interval=1.0)
    # url: "http://127.0.0.1:<port>/"; the server runs on a daemon thread until
    # stop() (idempotent; returns once the port is closed and the thread has ended)
    app = make_app(logdir, reload_interval=1.0, static_dir=None)   # the aiohttp Application
"""
import asyncio
import concurrent.futures
import logging
import os
import threading

from aiohttp import web

from ..utils.serving import serve_until_stopped, start_site
from .api import ENDPOINTS, ApiError, BoardState

__all__ = ["serve", "start_in_thread", "make_app", "STATIC_DIR", "plotly_js_path"]

STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
# A request line may carry a long tag (100 kB and more, percent-encoded up to 3x).
MAX_REQUEST_LINE = 4 << 20

_STATE = web.AppKey("board_state", BoardState)
_EXECUTOR = web.AppKey("board_executor", concurrent.futures.ThreadPoolExecutor)
_log = logging.getLogger("skiff.board")


def plotly_js_path():
    """The plotly.min.js shipped in the installed plotly package, or None."""
    try:
        import plotly  # noqa: PLC0415  (an optional dependency)
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(plotly.__file__), "package_data", "plotly.min.js")
    return path if os.path.isfile(path) else None


@web.middleware
async def _errors(request, handler):
    """ApiError and unknown /api/ paths as JSON errors; other failures as a JSON 500
    (the server keeps serving)."""
    try:
        return await handler(request)
    except ApiError as e:
        return web.json_response({"error": e.message}, status=e.status)
    except web.HTTPException as e:
        if request.path.startswith("/api/") and e.status >= 400:
            return web.json_response({"error": e.reason}, status=e.status)
        raise
    except Exception as e:  # a reader or file failure must not take the server down
        _log.exception("request %s failed", request.path[:200])
        return web.json_response({"error": f"internal error: {e}"}, status=500)


def _api_handler(fn):
    """A handler running ``fn(state, query)`` and its JSON encoding on a worker thread."""
    def respond(state, query):
        result = fn(state, query)
        if not isinstance(result, web.StreamResponse):
            result = web.json_response(result)
        result.headers.setdefault("Cache-Control", "no-store")
        return result

    async def handle(request):
        state, pool = request.app[_STATE], request.app[_EXECUTOR]
        query = dict(request.query)
        return await asyncio.get_running_loop().run_in_executor(pool, respond, state, query)
    return handle


def _file_in(folder, name):
    """The real path of ``folder/name`` when it is a file inside ``folder``, else None."""
    root = os.path.realpath(folder)
    path = os.path.realpath(os.path.join(root, name))
    if not path.startswith(root + os.sep) or not os.path.isfile(path):
        return None
    return path


def _static_handler(static_dir):
    async def handle(request):
        name = request.match_info.get("name", "index.html")
        if name == "plotly.min.js":
            path = plotly_js_path()
        else:
            path = _file_in(static_dir, name)
        if path is None:
            raise web.HTTPNotFound(text=f"no page file {name[:200]!r}\n")
        return web.FileResponse(path, headers={"Cache-Control": "no-cache"})
    return handle


def make_app(logdir, reload_interval=1.0, static_dir=None, worker_threads=8):
    """The aiohttp Application serving ``logdir`` (runs reloaded at most every
    ``reload_interval`` seconds; the page from ``static_dir``, default STATIC_DIR)."""
    app = web.Application(middlewares=[_errors])
    app[_STATE] = BoardState(logdir, reload_interval=reload_interval)
    app[_EXECUTOR] = concurrent.futures.ThreadPoolExecutor(
        max_workers=worker_threads, thread_name_prefix="skiff-board")

    async def shutdown_pool(app):
        app[_EXECUTOR].shutdown(wait=False, cancel_futures=True)

    app.on_cleanup.append(shutdown_pool)
    page = _static_handler(static_dir or STATIC_DIR)
    app.router.add_get("/", page)
    app.router.add_get("/static/{name:.+}", page)
    for name, fn in ENDPOINTS.items():
        app.router.add_get(f"/api/{name}", _api_handler(fn))
    return app


async def _start(logdir, host, port, **options):
    """Starts serving; returns (runner, url)."""
    return await start_site(make_app(logdir, **options), host, port,
                            max_line_size=MAX_REQUEST_LINE)


def serve(logdir, host="127.0.0.1", port=8040, reload_interval=1.0, static_dir=None,
          on_ready=None):
    """Serves ``logdir`` until Ctrl-C or SIGTERM; prints the URL (port 0 picks a free
    one) and calls ``on_ready(url)`` when given. Raises OSError if the port is taken."""
    serve_until_stopped(make_app(logdir, reload_interval=reload_interval,
                                 static_dir=static_dir),
                        host, port, f"skiff board: serving {os.path.abspath(logdir)}",
                        on_ready=on_ready, max_line_size=MAX_REQUEST_LINE)


def start_in_thread(logdir, host="127.0.0.1", port=0, timeout=30.0, **options):
    """Starts a server for ``logdir`` on a daemon thread; returns (url, stop). stop()
    closes the port and joins the thread. Raises what starting raised (OSError for a
    taken port) or TimeoutError."""
    loop = asyncio.new_event_loop()
    started = concurrent.futures.Future()

    def run():
        asyncio.set_event_loop(loop)
        try:
            runner, url = loop.run_until_complete(_start(logdir, host, port, **options))
        except BaseException as e:
            started.set_exception(e)
            loop.close()
            return
        started.set_result(url)
        try:
            loop.run_forever()
        finally:
            loop.run_until_complete(runner.cleanup())
            loop.close()

    thread = threading.Thread(target=run, name="skiff-board-server", daemon=True)
    thread.start()
    url = started.result(timeout)

    def stop():
        try:
            loop.call_soon_threadsafe(loop.stop)
        except RuntimeError:  # already stopped and closed
            pass
        thread.join(timeout)

    return url, stop
