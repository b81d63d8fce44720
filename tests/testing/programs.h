// Small program-building shorthands shared by the runtime and autodiff tests.
#pragma once

#include <string>

#include "skiff/api/builder.h"

namespace skiff::testing {

// A new variable holding `value` (fill_constant) of `dtype` and shape [1].
inline std::string constant(BlockBuilder& b, double value, const char* dtype = "int64",
                            SourceLoc loc = SourceLoc::current()) {
  return b.apply(
      "fill_constant", {},
      {{"shape", std::vector<int64_t>{1}}, {"value", value}, {"dtype", std::string(dtype)}}, loc);
}
inline std::string matmul(BlockBuilder& b, const std::string& x, const std::string& y,
                          SourceLoc loc = SourceLoc::current()) {
  return b.apply("matmul", {{"X", {x}}, {"Y", {y}}}, {}, loc);
}
inline std::string add(BlockBuilder& b, const std::string& x, const std::string& y,
                       SourceLoc loc = SourceLoc::current()) {
  return b.apply("elementwise_add", {{"X", {x}}, {"Y", {y}}}, {}, loc);
}
inline std::string mul(BlockBuilder& b, const std::string& x, const std::string& y,
                       SourceLoc loc = SourceLoc::current()) {
  return b.apply("elementwise_mul", {{"X", {x}}, {"Y", {y}}}, {}, loc);
}
inline std::string unary(BlockBuilder& b, const char* type, const std::string& x,
                         SourceLoc loc = SourceLoc::current()) {
  return b.apply(type, {{"X", {x}}}, {}, loc);
}
inline std::string less_than(BlockBuilder& b, const std::string& x, const std::string& y,
                             SourceLoc loc = SourceLoc::current()) {
  return b.apply("less_than", {{"X", {x}}, {"Y", {y}}}, {}, loc);
}
// i += 1 in place, then cond = i < n: the usual loop footer.
inline void step_counter(BlockBuilder& b, const std::string& i, const std::string& n,
                         const std::string& cond) {
  b.op("increment", {{"X", {i}}}, {{"Out", {i}}}, {{"step", 1.0}});
  b.op("less_than", {{"X", {i}}, {"Y", {n}}}, {{"Out", {cond}}});
}

}  // namespace skiff::testing
