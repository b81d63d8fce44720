// What the convolution ops share (conv.cc, and quantized_conv2d in quantized_compute.cc):
// their attributes, reading them into kernels::ConvParams at build time and in kernels.
//
//   add_conv_attrs(r.add("my_conv"));                // strides, paddings, dilations, ...
//   kernels::ConvParams p = conv_params_of(ctx);     // in shape inference
//   SKIFF_KERNEL_CALL(c, "conv", my_kernel, ..., conv2d_params_value(c), ...);
#pragma once

#include <string>
#include <vector>

#include "skiff/kernels/cpu/conv.h"
#include "skiff/ops/binding.h"
#include "skiff/ops/registry.h"

namespace skiff {

// conv2d's attributes: strides, paddings, dilations, groups, data_format (conv2d_transpose
// and the grad ops repeat them).
void add_conv_attrs(OpBuilder& b);

template <typename Ctx>
void check_data_format(const Ctx& ctx, const char* layout = "NCHW") {
  const std::string& format = ctx.op().template attr_ref<std::string>("data_format");
  SKIFF_CHECK(format == layout, "data_format \"", format, "\" is not supported; only \"", layout,
              "\"");
}

template <typename Ctx>
kernels::ConvParams conv_params_of(const Ctx& ctx) {
  check_data_format(ctx);
  return kernels::conv_params(ctx.template attr_ref<std::vector<int64_t>>("strides"),
                              ctx.template attr_ref<std::vector<int64_t>>("paddings"),
                              ctx.template attr_ref<std::vector<int64_t>>("dilations"),
                              ctx.template attr<int64_t>("groups"));
}

// The op's ConvParams (conv2d's), or the expression making them.
template <typename C>
auto conv2d_params_value(const C& c) {
  check_data_format(c);
  return SKIFF_KERNEL_VALUE(c, kernels::conv_params, attr_ref<std::vector<int64_t>>(c, "strides"),
                            attr_ref<std::vector<int64_t>>(c, "paddings"),
                            attr_ref<std::vector<int64_t>>(c, "dilations"),
                            attr<int64_t>(c, "groups"));
}

}  // namespace skiff
