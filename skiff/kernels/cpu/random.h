// Seeded random tensors drawn as PaddlePaddle's CPU kernels draw them, so a Paddle script
// run under skiff gets Paddle's numbers: the 64-bit Mersenne Twister (random_engine.h)
// and the C++ standard library's distributions (libstdc++'s algorithms), one value per
// element in order. A draw with seed 0 takes the process-wide engine
// (set_global_seed starts it from std::seed_seq{seed}, as paddle.seed); a nonzero seed starts a
// fresh engine from the seed itself (as Paddle's `seed` attribute). random_bits is a counter-based
// stream (element i from SplitMix64 output i of a key) for kernels that fill in parallel.
//
//   kernels::uniform_random(Shape{3}, DType::kF32, -1.0, 1.0, /*seed=*/7, &t);
//   kernels::set_global_seed(42);   // makes seed == 0 draws reproducible
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "skiff/core/tensor.h"

namespace skiff::kernels {

class RandomEngine;

// Reseeds the process-wide generator that seed == 0 draws use. Until called, that
// generator starts from a nondeterministic seed.
void set_global_seed(uint64_t seed);
// Runs fn(engine) on the engine a draw with `seed` uses: for seed 0 the process-wide one
// (held locked meanwhile), otherwise a fresh engine started from the seed itself. For
// samplers beyond this header's (sampling.h).
void with_random_engine(uint64_t seed, const std::function<void(RandomEngine&)>& fn);
// The process-wide engine's state as text, and restoring it (get/set_rng_state).
std::string global_generator_state();
void set_global_generator_state(const std::string& state);
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
// [min, max) (std::uniform_real_distribution of the dtype).
void uniform_random(const Shape& shape, DType dtype, double min, double max, uint64_t seed,
                    Tensor* out);
// Resizes `out` to (shape, dtype) (floating) and fills it with normal values
// (std::normal_distribution of the dtype).
void gaussian_random(const Shape& shape, DType dtype, double mean, double stddev, uint64_t seed,
                     Tensor* out);
// Resizes `out` to (shape, dtype) (int32 or int64) and fills it with integers uniform in
// [low, high) (std::uniform_int_distribution).
void randint(const Shape& shape, DType dtype, int64_t low, int64_t high, uint64_t seed,
             Tensor* out);
// keep[i] = 0 where the i-th float32 uniform draw in [0, 1) falls below p, else 1 (the
// keep mask of Paddle's CPU dropout).
void draw_keep_mask(uint64_t seed, double p, int64_t n, uint8_t* keep);
// Resizes `out` to [n] of `dtype` (int32, int64, float32, float64) holding a random
// permutation of 0 .. n - 1 (std::shuffle of 0 .. n - 1).
void randperm(int64_t n, DType dtype, uint64_t seed, Tensor* out);
// Resizes `out` to (shape, dtype) (floating) and fills it with normal values restricted
// to [a, b] (the density renormalised there): element i is the inverse normal CDF of
// its uniform draw scaled between the CDF values of a and b (Paddle's values).
void truncated_gaussian_random(const Shape& shape, DType dtype, double mean, double stddev,
                               double a, double b, uint64_t seed, Tensor* out);

}  // namespace skiff::kernels
