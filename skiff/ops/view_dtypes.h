// The dtypes the ops that only view or move values take: the data dtypes and bfloat16
// (whose values they move unchanged: reshape, flatten, squeeze, unsqueeze, transpose), and
// the complex dtypes.
#pragma once

#include <initializer_list>

#include "skiff/core/dtype.h"

namespace skiff {

inline constexpr std::initializer_list<DType> kViewDTypes = {
    DType::kF32, DType::kF64, DType::kI32,  DType::kI64, DType::kBool, DType::kI8,
    DType::kU8,  DType::kI16, DType::kBF16, DType::kC64, DType::kC128};

}  // namespace skiff
