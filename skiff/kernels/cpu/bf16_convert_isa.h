// float32 -> bfloat16 rounding per instruction set (skiff/core/cpu.h): the portable loop
// in bf16_convert.cc, vcvtne2ps2bf16 in bf16_convert_avx512bf16.cc. float_to_bf16
// (bf16_convert.h) calls the best one through dispatch_isa; both give the same bits.
#pragma once

#include <cstdint>

#include "skiff/core/cpu.h"
#include "skiff/core/dtype.h"

namespace skiff::kernels {

void float_to_bf16(GenericIsa, const float* x, bfloat16* out, int64_t n);
void float_to_bf16(Avx512Bf16Isa, const float* x, bfloat16* out, int64_t n);

}  // namespace skiff::kernels
