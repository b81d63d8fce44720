// SKIFF_COMPILED_CPU_FEATURES: the CPU features the including translation unit is compiled
// to use, read from the compiler's predefined macros (-march=...), as one string literal of
// space-separated cpu_has() names. A translation unit compiled with the flags under test
// keeps it as constant data; code compiled for the oldest CPU checks it:
//
//   extern const char kFeatures[] = SKIFF_COMPILED_CPU_FEATURES;   // " sse3 ssse3 ... avx2"
#pragma once

#ifdef __SSE3__
#define SKIFF_CF_SSE3 " sse3"
#else
#define SKIFF_CF_SSE3 ""
#endif
#ifdef __SSSE3__
#define SKIFF_CF_SSSE3 " ssse3"
#else
#define SKIFF_CF_SSSE3 ""
#endif
#ifdef __SSE4_1__
#define SKIFF_CF_SSE4_1 " sse4_1"
#else
#define SKIFF_CF_SSE4_1 ""
#endif
#ifdef __SSE4_2__
#define SKIFF_CF_SSE4_2 " sse4_2"
#else
#define SKIFF_CF_SSE4_2 ""
#endif
#ifdef __POPCNT__
#define SKIFF_CF_POPCNT " popcnt"
#else
#define SKIFF_CF_POPCNT ""
#endif
#ifdef __AVX__
#define SKIFF_CF_AVX " avx"
#else
#define SKIFF_CF_AVX ""
#endif
#ifdef __AVX2__
#define SKIFF_CF_AVX2 " avx2"
#else
#define SKIFF_CF_AVX2 ""
#endif
#ifdef __FMA__
#define SKIFF_CF_FMA " fma"
#else
#define SKIFF_CF_FMA ""
#endif
#ifdef __F16C__
#define SKIFF_CF_F16C " f16c"
#else
#define SKIFF_CF_F16C ""
#endif
#ifdef __BMI__
#define SKIFF_CF_BMI1 " bmi1"
#else
#define SKIFF_CF_BMI1 ""
#endif
#ifdef __BMI2__
#define SKIFF_CF_BMI2 " bmi2"
#else
#define SKIFF_CF_BMI2 ""
#endif
#ifdef __LZCNT__
#define SKIFF_CF_LZCNT " lzcnt"
#else
#define SKIFF_CF_LZCNT ""
#endif
#ifdef __MOVBE__
#define SKIFF_CF_MOVBE " movbe"
#else
#define SKIFF_CF_MOVBE ""
#endif
#ifdef __AVX512F__
#define SKIFF_CF_AVX512F " avx512f"
#else
#define SKIFF_CF_AVX512F ""
#endif
#ifdef __AVX512CD__
#define SKIFF_CF_AVX512CD " avx512cd"
#else
#define SKIFF_CF_AVX512CD ""
#endif
#ifdef __AVX512BW__
#define SKIFF_CF_AVX512BW " avx512bw"
#else
#define SKIFF_CF_AVX512BW ""
#endif
#ifdef __AVX512DQ__
#define SKIFF_CF_AVX512DQ " avx512dq"
#else
#define SKIFF_CF_AVX512DQ ""
#endif
#ifdef __AVX512VL__
#define SKIFF_CF_AVX512VL " avx512vl"
#else
#define SKIFF_CF_AVX512VL ""
#endif
#ifdef __AVX512IFMA__
#define SKIFF_CF_AVX512IFMA " avx512ifma"
#else
#define SKIFF_CF_AVX512IFMA ""
#endif
#ifdef __AVX512VBMI__
#define SKIFF_CF_AVX512VBMI " avx512vbmi"
#else
#define SKIFF_CF_AVX512VBMI ""
#endif
#ifdef __AVX512VBMI2__
#define SKIFF_CF_AVX512VBMI2 " avx512_vbmi2"
#else
#define SKIFF_CF_AVX512VBMI2 ""
#endif
#ifdef __AVX512VNNI__
#define SKIFF_CF_AVX512VNNI " avx512_vnni"
#else
#define SKIFF_CF_AVX512VNNI ""
#endif
#ifdef __AVX512BITALG__
#define SKIFF_CF_AVX512BITALG " avx512_bitalg"
#else
#define SKIFF_CF_AVX512BITALG ""
#endif
#ifdef __AVX512VPOPCNTDQ__
#define SKIFF_CF_AVX512VPOPCNTDQ " avx512_vpopcntdq"
#else
#define SKIFF_CF_AVX512VPOPCNTDQ ""
#endif
#ifdef __AVX512BF16__
#define SKIFF_CF_AVX512BF16 " avx512_bf16"
#else
#define SKIFF_CF_AVX512BF16 ""
#endif
#ifdef __AVX512FP16__
#define SKIFF_CF_AVX512FP16 " avx512_fp16"
#else
#define SKIFF_CF_AVX512FP16 ""
#endif
#ifdef __AVXVNNI__
#define SKIFF_CF_AVXVNNI " avx_vnni"
#else
#define SKIFF_CF_AVXVNNI ""
#endif

#define SKIFF_COMPILED_CPU_FEATURES                                                             \
  SKIFF_CF_SSE3 SKIFF_CF_SSSE3 SKIFF_CF_SSE4_1 SKIFF_CF_SSE4_2 SKIFF_CF_POPCNT SKIFF_CF_AVX     \
      SKIFF_CF_AVX2 SKIFF_CF_FMA SKIFF_CF_F16C SKIFF_CF_BMI1 SKIFF_CF_BMI2 SKIFF_CF_LZCNT       \
          SKIFF_CF_MOVBE SKIFF_CF_AVX512F SKIFF_CF_AVX512CD SKIFF_CF_AVX512BW SKIFF_CF_AVX512DQ \
              SKIFF_CF_AVX512VL SKIFF_CF_AVX512IFMA SKIFF_CF_AVX512VBMI SKIFF_CF_AVX512VBMI2    \
                  SKIFF_CF_AVX512VNNI SKIFF_CF_AVX512BITALG SKIFF_CF_AVX512VPOPCNTDQ            \
                      SKIFF_CF_AVX512BF16 SKIFF_CF_AVX512FP16 SKIFF_CF_AVXVNNI ""
