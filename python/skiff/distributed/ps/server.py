"""One parameter server process: its shard of every table, served over gRPC until a
trainer's ``stop_servers()``, SIGTERM or SIGINT (then it exits with status 0).

    python -m skiff.distributed.ps.server --shard 0 --shards 2 --port 0
    # prints: skiff ps server 0/2 listening on 127.0.0.1:PORT

With ``--checkpoint_dir DIR`` the server writes a checkpoint of its shard at most every
``--checkpoint_secs`` and, started again with the same folder and port after being killed,
resumes from the last one while the trainers replay what came after it. With
``--load_dir DIR`` (a folder a job of as many servers saved: ps.save, fleet.save_persistables)
each table the trainers create starts from its saved shard (Paddle's
fleet.init_server(dirname)).
"""
import argparse
import signal
import sys
import threading

from ... import _C

__all__ = ["serve", "main"]


def serve(shard, shards, host="127.0.0.1", port=0, out=sys.stdout, checkpoint_dir="",
          checkpoint_secs=30.0, load_dir="", load_tables=()):
    """Serves shard ``shard`` of ``shards`` on host:port (0: a free port), announcing the
    address in one flushed line on ``out``; returns once the server has stopped. With
    ``checkpoint_dir`` it checkpoints (at most every ``checkpoint_secs``) into it and
    starts from the last checkpoint found there. With ``load_dir`` the tables the trainers
    create start from their shards saved there (only ``load_tables`` when given), and
    trainer 0's initial values do not replace them."""
    server = _C.PsServer(address=f"{host}:{port}", shard=shard, shards=shards,
                         checkpoint_dir=str(checkpoint_dir or ""),
                         checkpoint_secs=float(checkpoint_secs),
                         load_dir=str(load_dir or ""), load_tables=[str(t) for t in load_tables])
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
    parser.add_argument("--checkpoint_dir", default="",
                        help="folder of the job's server checkpoints (default: none; a killed "
                             "server then ends the job)")
    parser.add_argument("--checkpoint_secs", type=float, default=30.0,
                        help="seconds between checkpoints (0: at every step or push)")
    parser.add_argument("--load_dir", default="",
                        help="folder of saved tables the trainers' tables start from "
                             "(default: none)")
    args = parser.parse_args(argv)
    if not 0 <= args.shard < args.shards:
        parser.error(f"--shard {args.shard} is not in [0, --shards {args.shards})")
    if args.checkpoint_secs < 0:
        parser.error(f"--checkpoint_secs {args.checkpoint_secs} is negative")
    serve(args.shard, args.shards, args.host, args.port, checkpoint_dir=args.checkpoint_dir,
          checkpoint_secs=args.checkpoint_secs, load_dir=args.load_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
