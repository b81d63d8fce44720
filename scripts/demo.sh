#!/usr/bin/env bash
# The main job on a fresh machine: setup, build, then train W3's CNN on Fashion-MNIST
# (from the Debian package dataset-fashion-mnist) with skiff.Model in eager mode,
# convert it with skiff.jit.to_static, save and reload it, and report test accuracy
# (exit 1 below 0.90). The C++-only demo: build/bin/fashion_mnist_cnn.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh skiff_C skiff_cli
.venv/bin/python examples/fashion_mnist.py --min-accuracy 0.90 "$@"
