#!/usr/bin/env bash
# Builds the libFuzzer target with clang in build-fuzz/, writes the seed corpus into
# fuzz/corpus-work/ and fuzzes for SECONDS (default 120); crashing inputs land in
# build-fuzz/fuzz-artifacts/. Not part of CI.
#   fuzz/run_fuzz.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SKIFF_FUZZ_BUILD:-$root/build-fuzz}
seconds=${1:-120}
shift || true
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DSKIFF_BUILD_FUZZ=ON \
    -DSKIFF_BUILD_TESTS=OFF -DSKIFF_BUILD_BENCH=OFF >/dev/null
fi
ninja -C "$build" -j"${SKIFF_JOBS:-2}" fuzz_load_program fuzz_make_seeds
corpus=$root/fuzz/corpus-work
mkdir -p "$corpus"
"$build/fuzz/fuzz_make_seeds" "$corpus"
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
"$build/fuzz/fuzz_load_program" -max_total_time="$seconds" -max_len=8192 \
  -artifact_prefix="$artifacts/" \
  -dict="$root/fuzz/skmodel.dict" -print_final_stats=1 "$@" "$corpus"
