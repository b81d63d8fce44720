#!/usr/bin/env bash
# Fails when an object file compiled for one instruction set (skiff/kernels/cpu/*_avx2.cc,
# *_avx512.cc, *_avx512bf16.cc) defines a weak symbol. The linker keeps one copy of each
# weak (inline or template) function for the whole library: a copy compiled for AVX-512
# could become the one every caller runs, on CPUs without AVX-512 too.
#   isa_objects_test.sh "OBJECT;OBJECT;..."   (CMake's $<TARGET_OBJECTS:skiff>)
set -euo pipefail
IFS=';' read -r -a objects <<< "$1"
checked=0
status=0
for obj in "${objects[@]}"; do
  case "$obj" in
    *_avx2.cc.o | *_avx512.cc.o | *_avx512bf16.cc.o) ;;
    *) continue ;;
  esac
  checked=$((checked + 1))
  # W/V: weak functions and objects, u: unique globals, i: indirect functions.
  # DW.ref.__gxx_personality_v0 is the C++ runtime's exception personality pointer.
  weak=$(nm -C --defined-only "$obj" |
         awk '$2 ~ /^[WVui]$/ && $3 != "DW.ref.__gxx_personality_v0" {$1=""; print}')
  if [ -n "$weak" ]; then
    echo "$(basename "$obj") defines weak symbols (move them into an anonymous namespace" \
         "or take them out of the file):"
    echo "$weak"
    status=1
  fi
done
if [ "$checked" -eq 0 ]; then
  echo "no per-instruction-set object files among the arguments"
  exit 1
fi
echo "checked $checked per-instruction-set object files"
exit $status
