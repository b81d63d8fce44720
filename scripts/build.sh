#!/usr/bin/env bash
# Configures (once) and builds skiff in build/ with Ninja and ccache, two jobs; the
# Python module is built against .venv (scripts/setup.sh makes it).
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to the checkout: another clone reuses the same cache.
export CCACHE_BASEDIR="$PWD"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
fi
ninja -C build -j"${SKIFF_JOBS:-2}" "$@"
