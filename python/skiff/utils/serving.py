"""Serving an aiohttp application on one address until SIGTERM or Ctrl-C: what skiff's
servers (skiff board, skiff cloud) share. Imported by them only (it needs aiohttp).

    runner, url = await start_site(app, "127.0.0.1", 0)      # port 0: a free one
    serve_until_stopped(app, "127.0.0.1", 8040, "skiff board: serving DIR")
"""
import asyncio
import signal
import threading

from aiohttp import web

__all__ = ["start_site", "serve_until_stopped"]


async def start_site(app, host, port, **runner_options):
    """Starts serving ``app``; returns (runner, url). Raises OSError for a taken port."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False, **runner_options)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except BaseException:
        await runner.cleanup()
        raise
    bound_host, bound_port = runner.addresses[0][:2]
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host
    return runner, f"http://{shown}:{bound_port}/"


def serve_until_stopped(app, host, port, banner, on_ready=None, **runner_options):
    """Serves ``app`` until SIGTERM or Ctrl-C; prints "BANNER at URL" once it listens and
    calls ``on_ready(url)`` when given."""

    async def main():
        runner, url = await start_site(app, host, port, **runner_options)
        done = asyncio.Event()
        if threading.current_thread() is threading.main_thread():
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, done.set)
        print(f"{banner} at {url}", flush=True)
        if on_ready:
            on_ready(url)
        try:
            await done.wait()
        finally:
            await runner.cleanup()

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
