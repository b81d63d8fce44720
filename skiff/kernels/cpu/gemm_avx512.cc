// gemm_isa.h's loops for AVX-512: 64-byte vectors (CMake compiles *_avx512.cc files with
// -march=x86-64-v4).
#define SKIFF_KERNEL_ISA avx512
#define SKIFF_GEMM_VECTOR_BYTES 64
#include "skiff/kernels/cpu/gemm_loops.h"
