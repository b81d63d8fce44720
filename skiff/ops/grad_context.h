// What a grad maker sees: the forward op, the names of its outputs' gradients, and
// which inputs need a gradient. It appends grad ops; append_backward then renames
// and sums gradients that several ops produce, and zero-fills unreached ones.
//
//   void tanh_grad_maker(GradContext& g) {
//     g.add("tanh_grad")
//         .set_input("Out", {g.fwd().first_output("Out")})
//         .set_input("Out@GRAD", {g.out_grad("Out")})
//         .set_output("X@GRAD", {g.in_grad("X")});
//   }
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

class GradContext {
 public:
  // `needs_grad(var)` tells whether the gradient of input variable `var` is wanted.
  GradContext(const OpDesc& fwd, std::function<bool(const std::string&)> needs_grad)
      : fwd_(fwd), needs_grad_(std::move(needs_grad)) {}

  const OpDesc& fwd() const { return fwd_; }
  // The gradient variable of output `slot`[i].
  std::string out_grad(const char* slot, int i = 0) const;
  std::vector<std::string> out_grads(const char* slot) const;
  // Where to write the gradient of input `slot`[i]; "" when it is not needed.
  std::string in_grad(const char* slot, int i = 0) const;
  std::vector<std::string> in_grads(const char* slot) const;
  // True if any input of `slot` needs a gradient.
  bool wants(const char* slot) const;
  // Appends a grad op carrying the forward op's source location.
  OpDesc& add(const std::string& type);

  std::vector<OpDesc>& ops() { return ops_; }

 private:
  const OpDesc& fwd_;
  std::function<bool(const std::string&)> needs_grad_;
  std::vector<OpDesc> ops_;
};

}  // namespace skiff
