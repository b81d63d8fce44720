# Tests on CPUs other than this machine's, emulated by qemu-user (Debian package qemu-user):
# its cpuid shows only the emulated CPU's features, and an instruction that CPU lacks is an
# illegal instruction, so these prove what no capped run can: that nothing executes an
# AVX-512 instruction where there is none. Included by tests/CMakeLists.txt.
# SKIFF_AVX2_CPU_RUNNER: the command prefix that runs a program on the AVX2 CPU ("" when
# there is none), for tests that run programs of their own there (codegen/cpu_test.cc).
set(SKIFF_AVX2_CPU_RUNNER "")
find_program(SKIFF_QEMU_X86_64 qemu-x86_64)
if(NOT SKIFF_X86)
  return()
endif()
if(NOT SKIFF_QEMU_X86_64)
  message(WARNING "qemu-x86_64 (Debian package qemu-user) is missing: the emulated-CPU tests "
                  "are not registered")
  return()
endif()

# Intel Haswell: AVX2 + FMA, no AVX-512 (x86-64-v3, as an AMD EPYC before Zen 4), less the
# system features qemu does not emulate. Intel Nehalem: SSE4.2, no AVX (x86-64-v2).
set(SKIFF_CPU_AVX2 Haswell-noTSX,-pcid,-x2apic,-tsc-deadline,-invpcid)
set(SKIFF_CPU_V2 Nehalem)

if(NOT SKIFF_NATIVE AND SKIFF_BASELINE MATCHES "^x86-64(-v[23])?$")
  set(SKIFF_AVX2_CPU_RUNNER "${SKIFF_QEMU_X86_64} -cpu ${SKIFF_CPU_AVX2}")
  # The kernels with per-instruction-set code and the op families that lean on oneDNN,
  # whole, on the AVX2 CPU (emulation is ~50x slower: the cheaper binaries only).
  foreach(test isa_paths_test pool_test matmul_test conv_test bf16_compute_test
               bf16_cast_test activation_test elementwise_test softmax_test norm_test
               optimizer_test embedding_test eager_test)
    add_test(NAME ${test}.haswell
             COMMAND ${SKIFF_QEMU_X86_64} -cpu ${SKIFF_CPU_AVX2} $<TARGET_FILE:${test}>)
    set_tests_properties(${test}.haswell PROPERTIES LABELS emulated TIMEOUT 900)
  endforeach()
  add_test(NAME cpu_test.haswell
           COMMAND ${SKIFF_QEMU_X86_64} -cpu ${SKIFF_CPU_AVX2} $<TARGET_FILE:cpu_test>
                   --gtest_filter=Cpu.BestIsaIsTheExpectedOne)
  set_tests_properties(cpu_test.haswell PROPERTIES LABELS emulated
                       ENVIRONMENT SKIFF_TEST_EXPECT_ISA=avx2
                       PASS_REGULAR_EXPRESSION "\\[  PASSED  \\] 1 test")
endif()

if(NOT SKIFF_NATIVE AND SKIFF_BASELINE MATCHES "^x86-64-v[34]$")
  # Below the baseline: libskiff stops with the features it misses, before any of its code
  # compiled for the baseline runs.
  add_test(NAME baseline_check.nehalem
           COMMAND ${SKIFF_QEMU_X86_64} -cpu ${SKIFF_CPU_V2} $<TARGET_FILE:skiff_cli> ops)
  set_tests_properties(baseline_check.nehalem PROPERTIES LABELS emulated
    PASS_REGULAR_EXPRESSION "compiled for ${SKIFF_BASELINE} and needs CPU features this CPU lacks: avx avx2 fma"
    FAIL_REGULAR_EXPRESSION "Illegal instruction;signal 4")
endif()
