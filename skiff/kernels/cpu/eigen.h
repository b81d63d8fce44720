// Eigen for vectorised elementwise kernels. GCC 12 reports the _mm512_undefined_*
// idiom of its own AVX-512 header, reached through Eigen's vectorised tanh, exp, log
// and sqrt, as maybe-uninitialized (or uninitialized, when the function is emitted out
// of line): a known false positive, silenced for the kernel files that include this
// header (and only under GCC, for clang-tidy's sake).
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include <Eigen/Core>

namespace skiff::kernels {

// n values of a kernel's flat buffer seen as an Eigen array, read-only or writable:
//   ArrayOut<float>(y, n) = ArrayIn<float>(x, n).tanh();
template <typename T>
using ArrayIn = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ArrayOut = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;

}  // namespace skiff::kernels
