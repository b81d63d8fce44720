"""One parameter server process: its shard of every table, served over gRPC until a
trainer's ``stop_servers()``, SIGTERM or SIGINT (then it exits with status 0).

    python -m skiff.distributed.ps.server --shard 0 --shards 2 --port 0
    # prints: skiff ps server 0/2 listening on 127.0.0.1:PORT
"""
import argparse
import signal
import sys
import threading

from ... import _C

__all__ = ["serve", "main"]


def serve(shard, shards, host="127.0.0.1", port=0, out=sys.stdout):
    """Serves shard ``shard`` of ``shards`` on host:port (0: a free port), announcing the
    address in one flushed line on ``out``; returns once the server has stopped."""
    server = _C.PsServer(address=f"{host}:{port}", shard=shard, shards=shards)
    previous = {sig: signal.signal(sig, lambda *_: server.shutdown())
                for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        print(f"skiff ps server {shard}/{shards} listening on {host}:{server.port}", file=out,
              flush=True)
        # wait() blocks in C++; the main thread joins it in slices so that the signal
        # handlers (which run only on the main thread) can call shutdown().
        waiter = threading.Thread(target=server.wait, name="ps-server-wait", daemon=True)
        waiter.start()
        while waiter.is_alive():
            waiter.join(0.2)
    finally:
        server.shutdown()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m skiff.distributed.ps.server",
                                     description="Runs one parameter server.")
    parser.add_argument("--shard", type=int, required=True, help="this server's index")
    parser.add_argument("--shards", type=int, required=True, help="servers in the job")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on")
    parser.add_argument("--port", type=int, default=0, help="port (0: a free one)")
    args = parser.parse_args(argv)
    if not 0 <= args.shard < args.shards:
        parser.error(f"--shard {args.shard} is not in [0, --shards {args.shards})")
    serve(args.shard, args.shards, args.host, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
