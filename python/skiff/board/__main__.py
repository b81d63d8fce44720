"""``python -m skiff.board --logdir DIR [--port P] [--host H] [--reload-interval S]``:
serves DIR's training logs on http://H:P/ (default 127.0.0.1:8040; port 0 picks a free
port, printed on start) until Ctrl-C."""
import argparse
import os
import sys


def main(argv=None):
    """Parses the command line and serves; returns the process exit status."""
    parser = argparse.ArgumentParser(
        prog="python -m skiff.board",
        description="Serve TensorBoard event files, embeddings and skiff programs of a "
                    "log directory as web pages.")
    parser.add_argument("--logdir", required=True, help="folder holding the runs")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to bind (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8040,
                        help="port (default 8040; 0 picks a free one)")
    parser.add_argument("--reload-interval", type=float, default=1.0,
                        help="least seconds between two reads of a run's new events")
    args = parser.parse_args(argv)
    if not os.path.isdir(args.logdir):
        print(f"skiff board: {args.logdir} is not a folder yet; its runs appear once "
              f"written", file=sys.stderr)
    from .server import serve  # noqa: PLC0415  (aiohttp is needed only here)
    try:
        serve(args.logdir, host=args.host, port=args.port,
              reload_interval=args.reload_interval)
    except OSError as e:
        print(f"skiff board: cannot listen on {args.host}:{args.port}: {e.strerror or e}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
