#!/usr/bin/env bash
# Everything a fresh machine needs to run all of skiff's tests: setup, build, ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
scripts/check_format.sh
scripts/check_layers.sh
scripts/check_python.sh
scripts/build.sh
cd build && ctest --output-on-failure -j2 "$@"
