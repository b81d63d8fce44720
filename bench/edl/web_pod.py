"""One pod of the web service of the autoscaling experiment (bench/edl_local.py): an HTTP
server on 127.0.0.1 (a free port, printed as "listening on PORT") whose GET /score
answers a small MLP's score of a batch of 64 rows (numpy, about a millisecond of CPU), until
SIGTERM.

    python web_pod.py"""
import http.server
import json
import signal
import sys

import numpy as np

rng = np.random.default_rng(0)
W1, W2 = rng.standard_normal((128, 256)), rng.standard_normal((256, 1))


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (the standard library's name)
        if self.path != "/score":
            self.send_error(404, "only GET /score")
            return
        x = rng.standard_normal((64, 128))
        score = float((np.maximum(x @ W1, 0) @ W2).mean())
        body = json.dumps({"score": score}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads, server.block_on_close = True, False  # SIGTERM ends it at once
signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
print(f"listening on {server.server_address[1]}", flush=True)
try:
    server.serve_forever()
finally:
    server.server_close()
