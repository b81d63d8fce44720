#!/usr/bin/env bash
# Makes .venv-serve-peers, the virtual environment of bench/serve_peers.py's peer servers
# (Triton through PyTriton, KServe's model server, PyTorch), from requirements/serve_peers.txt;
# idempotent: a stamp remembers the requirements installed, so a re-run installs nothing.
#   bench/serve_peers_setup.sh [PYTHON]     PYTHON: the interpreter to make it with (python3)
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv-serve-peers
file=requirements/serve_peers.txt
stamp=$venv/requirements-serve_peers.sha256
if [ ! -x $venv/bin/python ]; then
  echo "serve_peers_setup: creating $venv"
  "${1:-python3}" -m venv $venv
fi
if ! sha256sum -c --status "$stamp" 2>/dev/null; then
  echo "serve_peers_setup: pip install -r $file"
  $venv/bin/pip install -q --disable-pip-version-check -r "$file"
  sha256sum "$file" >"$stamp"
fi
