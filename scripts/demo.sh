#!/usr/bin/env bash
# The main job on a fresh machine: setup, build, then train the demo model on
# Fashion-MNIST (from the Debian package dataset-fashion-mnist) and report accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh fashion_mnist_mlp
build/bin/fashion_mnist_mlp --save build/fashion_mnist_mlp "$@"
