#!/usr/bin/env bash
# Configures (once) and builds skiff in build/ with Ninja and ccache, two jobs; the
# Python module is built against .venv (scripts/setup.sh makes it), which then imports
# skiff from build/python and has the `skiff` command.
set -euo pipefail
cd "$(dirname "$0")/.."
# ccache hashes paths relative to the checkout: another clone reuses the same cache.
export CCACHE_BASEDIR="$PWD"
if [ ! -f build/build.ninja ]; then
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DPython_EXECUTABLE="$PWD/.venv/bin/python" >/dev/null
fi
ninja -C build -j"${SKIFF_JOBS:-2}" "$@"
# The environment sees what was built: `import skiff` in .venv's Python (a .pth file naming
# build/python) and the `skiff` command in .venv/bin (a link to build/bin/skiff).
if [ -x .venv/bin/python ]; then
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$PWD/build/python" > "$site/skiff-build.pth"
  if [ -x build/bin/skiff ]; then ln -sf "$PWD/build/bin/skiff" .venv/bin/skiff; fi
fi
