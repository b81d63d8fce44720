// The 2x2 pooling windows of pool_planes.cc (stride 2, inside the input) in float32 for
// the instruction sets that have their own file (pool_planes_avx2.cc, pool_planes_avx512.cc);
// pool_planes.cc holds the portable loops (the GenericIsa overloads) and calls the best
// one through dispatch_isa (skiff/core/cpu.h). The semantics are those of the portable
// loops: the first maximum in row-major order (a, b / c, d) and its flat index in the plane
// in `mask` when given; gradients write every cell of the covered rows. int8 planes (an
// int8 model's max pooling) take plane_max_2x2: the maxima alone, no argmax.
#pragma once

#include <cstdint>

#include "skiff/core/cpu.h"
#include "skiff/kernels/cpu/pool_geometry.h"

namespace skiff::kernels {

void plane_2x2(Avx2Isa, const PoolGeometry& g, const float* x, float* y, int32_t* mask);
void plane_max_2x2(Avx2Isa, const PoolGeometry& g, const int8_t* x, int8_t* y);
void plane_grad_2x2(Avx2Isa, const PoolGeometry& g, const float* x, const float* dy,
                    const int32_t* mask, float* dx);

void plane_2x2(Avx512Isa, const PoolGeometry& g, const float* x, float* y, int32_t* mask);
void plane_max_2x2(Avx512Isa, const PoolGeometry& g, const int8_t* x, int8_t* y);
void plane_grad_2x2(Avx512Isa, const PoolGeometry& g, const float* x, const float* dy,
                    const int32_t* mask, float* dx);

}  // namespace skiff::kernels
