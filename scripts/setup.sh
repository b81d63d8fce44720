#!/usr/bin/env bash
# Installs what skiff needs to build and test, idempotently and quietly:
# Debian packages (compiler toolchain, protobuf, oneDNN, GTest, Benchmark, the
# Fashion-MNIST dataset) and a Python virtual environment in .venv with the binding's
# build tools (nanobind, scikit-build-core), pytest, and the reference frameworks the
# Python tests compare against (PyTorch, PaddlePaddle, and onnx / onnxruntime for the
# ONNX exporter's tests; never runtime dependencies).
#   scripts/setup.sh            build + test dependencies
#   scripts/setup.sh --bench    the same (kept for older instructions)
set -euo pipefail
cd "$(dirname "$0")/.."

want_bench=0
[ "${1:-}" = "--bench" ] && want_bench=1

packages=(g++ cmake ninja-build ccache pkg-config protobuf-compiler libprotobuf-dev
          libdnnl-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
          python3-venv dataset-fashion-mnist clang clang-format libclang-rt-14-dev
          make g++-aarch64-linux-gnu qemu-user)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  python3 -m venv .venv
fi
pip_install() {
  .venv/bin/python -c "import $1" 2>/dev/null || {
    echo "setup: pip install $2"
    .venv/bin/pip install -q --disable-pip-version-check "$2"
  }
}
pip_install numpy numpy
pip_install pytest pytest
pip_install nanobind nanobind
pip_install scikit_build_core scikit-build-core
pip_install torch torch
pip_install paddle paddlepaddle
pip_install onnx onnx
pip_install onnxruntime onnxruntime
: "$want_bench"
