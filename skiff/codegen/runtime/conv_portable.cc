// The float32 and bfloat16 entry points of conv_geometry.h for the portable kernel set
// (kernels built with SKIFF_NO_ONEDNN for generated code): float32 takes the same im2col +
// gemm loops as float64, bfloat16 reports "no primitive" so that conv.cc computes it in
// float32. Replaces kernels/cpu/conv_onednn.cc in that set.
#include "skiff/kernels/cpu/conv_geometry.h"

namespace skiff::kernels {

void conv_forward(const ConvGeometry& g, const float* src, const float* weights, const float* bias,
                  bool relu, float* dst) {
  direct_conv_forward(g, src, weights, bias, relu, dst);
}

void conv_backward_data(const ConvGeometry& g, const float* weights, const float* dst_grad,
                        float* src_grad) {
  direct_conv_backward_data(g, weights, dst_grad, src_grad);
}

void conv_backward_weights(const ConvGeometry& g, const float* src, const float* dst_grad,
                           float* weights_grad, float* bias_grad) {
  direct_conv_backward_weights(g, src, dst_grad, weights_grad, bias_grad);
}

bool conv_forward(const ConvGeometry&, const bfloat16*, const bfloat16*, const bfloat16*, bool,
                  bfloat16*) {
  return false;
}

bool conv_backward_data(const ConvGeometry&, const bfloat16*, const bfloat16*, bfloat16*) {
  return false;
}

bool conv_backward_weights(const ConvGeometry&, const bfloat16*, const bfloat16*, bfloat16*,
                           bfloat16*) {
  return false;
}

}  // namespace skiff::kernels
