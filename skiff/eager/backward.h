// Eager backward: walks the tape from the given tensors back to the leaves, running
// each recorded op's grad ops once every gradient of its outputs has arrived.
//
//   run_backward({loss}, {}, /*retain_graph=*/false);   // loss.backward()
//   auto g = compute_grads({y}, {x}, {}, false, false);  // skiff.grad(y, x)
#pragma once

#include <functional>
#include <vector>

#include "skiff/eager/eager_tensor.h"

namespace skiff::eager {

// Adds d(sum_i <roots[i], grads[i]>)/d(leaf) into the `grad` of every leaf that
// wants a gradient (and of non-leaves marked retain_grad). `grads` may be empty or
// hold nullptr entries: ones of the root's shape. Without `retain_graph` the tape
// behind the roots is freed, and a second backward through it throws.
void run_backward(const std::vector<TensorPtr>& roots, const std::vector<TensorPtr>& grads,
                  bool retain_graph);

// Runs `fn` once when the backward now running ends (from a grad_ready hook: data-parallel
// training then waits for its last gradients); outside a backward, right away.
void queue_backward_callback(std::function<void()> fn);

// The gradients of the roots with respect to `inputs` (leaves or not), without
// touching any `grad` field; nullptr for an input the roots do not depend on when
// `allow_unused`, else an error.
std::vector<TensorPtr> compute_grads(const std::vector<TensorPtr>& roots,
                                     const std::vector<TensorPtr>& inputs,
                                     const std::vector<TensorPtr>& grads, bool retain_graph,
                                     bool allow_unused);

}  // namespace skiff::eager
