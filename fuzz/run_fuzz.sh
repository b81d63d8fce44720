#!/usr/bin/env bash
# Builds the libFuzzer targets with clang in build-fuzz/, writes each one's seed corpus and
# fuzzes each for SECONDS (default 120), one after the other: fuzz_load_program over
# fuzz/corpus-work/, fuzz_infer_request over fuzz/corpus-work-infer-request/,
# fuzz_http_request over fuzz/corpus-work-http-request/. Crashing inputs land in
# build-fuzz/fuzz-artifacts/. SKIFF_FUZZ_TARGETS picks targets (default "load_program
# infer_request http_request"). Not part of CI.
#   fuzz/run_fuzz.sh [SECONDS] [extra libFuzzer flags...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SKIFF_FUZZ_BUILD:-$root/build-fuzz}
seconds=${1:-120}
shift || true
targets=${SKIFF_FUZZ_TARGETS:-load_program infer_request http_request}
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DSKIFF_BUILD_FUZZ=ON \
    -DSKIFF_BUILD_TESTS=OFF -DSKIFF_BUILD_BENCH=OFF >/dev/null
fi
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
for target in $targets; do
  case $target in
    load_program)
      seeds=fuzz_make_seeds corpus=$root/fuzz/corpus-work dict=$root/fuzz/skmodel.dict ;;
    infer_request)
      seeds=fuzz_make_infer_seeds corpus=$root/fuzz/corpus-work-infer-request
      dict=$root/fuzz/infer_request.dict ;;
    http_request)
      seeds=fuzz_make_http_seeds corpus=$root/fuzz/corpus-work-http-request
      dict=$root/fuzz/http_request.dict ;;
    *)
      echo "run_fuzz.sh: unknown target '$target'" >&2
      exit 2 ;;
  esac
  ninja -C "$build" -j"${SKIFF_JOBS:-2}" "fuzz_$target" "$seeds"
  mkdir -p "$corpus"
  "$build/fuzz/$seeds" "$corpus"
  "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len=8192 \
    -artifact_prefix="$artifacts/" \
    -dict="$dict" -print_final_stats=1 "$@" "$corpus"
done
