// softmax_rows_isa.h for any CPU: Eigen, vectorised for the build's baseline.
#include "skiff/kernels/cpu/softmax_rows_isa.h"

#include <cmath>

#include "skiff/kernels/cpu/eigen.h"

namespace skiff::kernels {

float softmax_row(GenericIsa, const float* x, float* y, int64_t n) {
  const float mx = ArrayIn<float>(x, n).maxCoeff();
  ArrayOut<float>(y, n) = (ArrayIn<float>(x, n) - mx).exp();
  const float sum = ArrayOut<float>(y, n).sum();
  ArrayOut<float>(y, n) *= 1.0f / sum;
  return mx + std::log(sum);
}

void log_softmax_row(GenericIsa, const float* x, float* y, int64_t n) {
  ArrayIn<float> xa(x, n);
  const float mx = xa.maxCoeff();
  const float lse = mx + std::log((xa - mx).exp().sum());
  ArrayOut<float>(y, n) = xa - lse;
}

}  // namespace skiff::kernels
