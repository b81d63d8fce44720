// The activations an elementwise op may apply to its result (its `fuse_activation`
// attribute): relu, tanh and sigmoid. One list for the ops that run them, the executor that
// fuses them and the exporters that write them out.
#pragma once

#include <string>

namespace skiff {

// True for "relu", "tanh" and "sigmoid".
bool is_fusable_activation(const std::string& name);

}  // namespace skiff
