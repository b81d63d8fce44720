"""skiff board: training logs in TensorBoard's event-file format, written through
VisualDL's API, and a web page that shows them (``python -m skiff.board --logdir runs``).

    from skiff.board import LogWriter
    with LogWriter("runs/exp1") as writer:
        writer.add_scalar("train/loss", 0.25, step=1)

Importing the package loads only the writing side; the server (and aiohttp) loads when
``serve`` is called.
"""
from .watch import Watch, global_grad_norm, watch
from .writer import LogWriter, default_logdir

__all__ = ["LogWriter", "default_logdir", "watch", "Watch", "global_grad_norm", "serve"]


def serve(logdir, *args, **kwargs):
    """Serves the page for ``logdir`` until interrupted (skiff.board.server.serve's
    arguments: host, port, reload_interval, ...)."""
    from .server import serve as serve_logdir  # noqa: PLC0415  (aiohttp: needed only to serve)
    return serve_logdir(logdir, *args, **kwargs)
