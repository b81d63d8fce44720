// gemm_isa.h's loops for AVX2 + FMA: 32-byte vectors (CMake compiles *_avx2.cc files with
// -march=x86-64-v3).
#define SKIFF_KERNEL_ISA avx2
#define SKIFF_GEMM_VECTOR_BYTES 32
#include "skiff/kernels/cpu/gemm_loops.h"
