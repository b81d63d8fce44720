// Seeded random tensors with an explicit, portable algorithm: element i of a stream
// with key k is built from SplitMix64 output number i (state k + (i + 1) * 0x9e37...),
// so a given seed yields the same values on every run, machine and thread count.
//
//   kernels::uniform_random(Shape{3}, DType::kF32, -1.0, 1.0, /*seed=*/7, &t);
//   kernels::set_global_seed(42);   // makes seed == 0 draws reproducible
#pragma once

#include <cstdint>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

// Reseeds the process-wide generator that seed == 0 draws use. Until called, that
// generator starts from a nondeterministic seed.
void set_global_seed(uint64_t seed);
// The stream key for `seed`: a fixed function of a nonzero seed; for seed == 0 the
// next key of the process-wide generator (thread safe).
uint64_t random_stream_key(uint64_t seed);
// SplitMix64's output function.
inline uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
// Uniform 64 random bits: element `counter` of the stream `key`. Inline, so loops
// drawing one value per element vectorize.
inline uint64_t random_bits(uint64_t key, uint64_t counter) {
  return mix64(key + (counter + 1) * 0x9e3779b97f4a7c15ULL);
}

// Resizes `out` to (shape, dtype) (floating) and fills it with values uniform in
// [min, max): u = (bits >> 11) * 2^-53, value = min + (max - min) * u.
void uniform_random(const Shape& shape, DType dtype, double min, double max, uint64_t seed,
                    Tensor* out);
// Resizes `out` to (shape, dtype) (floating) and fills it with normal values by the
// Box-Muller transform of element pairs: mean + stddev * sqrt(-2 ln u1) * (cos, sin)(2 pi u2).
void gaussian_random(const Shape& shape, DType dtype, double mean, double stddev, uint64_t seed,
                     Tensor* out);
// Resizes `out` to (shape, dtype) (floating) and fills it with normal values restricted
// to [a, b] (the density renormalised there): element i is the inverse normal CDF of
// a uniform draw between the CDF values of a and b.
void truncated_gaussian_random(const Shape& shape, DType dtype, double mean, double stddev,
                               double a, double b, uint64_t seed, Tensor* out);

}  // namespace skiff::kernels
