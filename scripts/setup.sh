#!/usr/bin/env bash
# Installs what skiff needs, idempotently and quietly: Debian packages and a Python virtual
# environment in .venv.
#   scripts/setup.sh          to build and run skiff (scripts/demo.sh): the compiler
#                             toolchain, protobuf, oneDNN, Eigen, GTest and Benchmark (the
#                             default build configures the tests and benchmarks), Gloo,
#                             libcurl, nlohmann-json and etcd (distributed training), gRPC
#                             (the parameter server), Boost.Beast (skiff serve's HTTP;
#                             cpp-httplib, the client of its tests), redis-server
#                             (streams), the Fashion-MNIST dataset; from PyPI
#                             requirements/build.txt: numpy, the binding's build tools
#                             (nanobind, scikit-build-core), aiohttp and plotly (skiff
#                             board's server and charts), redis and hiredis (streams)
#   scripts/setup.sh --test   also what the tests and benchmarks use (scripts/test.sh):
#                             clang-format, clang's sanitizer runtime, the aarch64 cross
#                             compiler and qemu-user (aarch64 and emulated x86-64 CPUs),
#                             Chromium (the board's page is tested in a headless browser),
#                             OpenJDK 17 (Spark, for the streams' tests);
#                             requirements/test.txt: pytest, Playwright, PySpark, the reference
#                             frameworks the tests compare against (PyTorch, PaddlePaddle,
#                             onnx / onnxruntime, TensorBoard; never runtime dependencies)
#   scripts/setup.sh --bench  also requirements/bench.txt: VisualDL (bench/board_writer.py's
#                             peer) and Ray's job API (bench/cloud_jobs.py's)
# Every PyPI package is pinned, with its dependencies: a fresh machine gets what CI tested.
set -euo pipefail
cd "$(dirname "$0")/.."

with_tests=0
with_bench=0
case "${1:-}" in
  --test) with_tests=1 ;;
  --bench) with_tests=1 with_bench=1 ;;
  "") ;;
  *)
    echo "usage: scripts/setup.sh [--test|--bench]" >&2
    exit 2
    ;;
esac

packages=(g++ cmake ninja-build ccache pkg-config protobuf-compiler libprotobuf-dev
          libdnnl-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev
          python3-venv dataset-fashion-mnist make libgloo-dev libcurl4-openssl-dev
          nlohmann-json3-dev etcd-server libgrpc++-dev protobuf-compiler-grpc libcpp-httplib-dev
          libboost-dev redis-server)
if [ "$with_tests" = 1 ]; then
  packages+=(clang clang-format libclang-rt-14-dev g++-aarch64-linux-gnu qemu-user chromium
             openjdk-17-jre-headless)
fi
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
# The pinned requirements of each purpose (requirements/*.txt); a stamp in .venv remembers
# which files were installed as they are now, so a re-run installs nothing.
pip_requirements() {
  local file=requirements/$1.txt stamp=.venv/requirements-$1.sha256
  if ! sha256sum -c --status "$stamp" 2>/dev/null; then
    echo "setup: pip install -r $file"
    .venv/bin/pip install -q --disable-pip-version-check -r "$file"
    sha256sum requirements/*.txt >"$stamp"
  fi
}
if [ "$with_bench" = 1 ]; then
  pip_requirements bench
elif [ "$with_tests" = 1 ]; then
  pip_requirements test
else
  pip_requirements build
fi
# KServe's clients, for the inference server's tests, in an environment of their own
# (their pins conflict with test.txt's).
if [ "$with_tests" = 1 ]; then
  kserve_stamp=.venv-kserve/requirements-kserve_client.sha256
  if ! sha256sum -c --status "$kserve_stamp" 2>/dev/null; then
    echo "setup: .venv-kserve from requirements/kserve_client.txt"
    [ -x .venv-kserve/bin/python ] || python3 -m venv .venv-kserve
    .venv-kserve/bin/pip install -q --disable-pip-version-check -r requirements/kserve_client.txt
    sha256sum requirements/kserve_client.txt >"$kserve_stamp"
  fi
fi
