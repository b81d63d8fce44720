// The C++ frontend: builds programs op by op, filling default attributes, inferring
// shapes and recording the C++ file and line that created each op (errors show it).
//
//   Program main;
//   BlockBuilder b(&main);
//   std::string x = b.data("x", DType::kF32, {-1, 16});
//   std::string w = b.persistable("w", DType::kF32, {16, 16});
//   std::string y = b.apply("tanh", {{"X", {b.apply("matmul", {{"X", {x}}, {"Y", {w}}})}}});
//   b.while_loop(cond, [&](BlockBuilder& body) { ...; body.assign(next, cond); });
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "skiff/ir/program.h"

namespace skiff {

// Where a frontend call was made; C++ callers get it from default arguments.
struct SourceLoc {
  const char* file = "";
  int line = 0;
  static SourceLoc current(const char* file = __builtin_FILE(), int line = __builtin_LINE()) {
    return SourceLoc{file, line};
  }
  std::string str() const;
};

using AttrList = std::vector<std::pair<std::string, Attr>>;

// How the startup program initializes a parameter.
struct Initializer {
  enum class Kind { kUniform, kNormal, kConstant, kXavier };
  Kind kind = Kind::kXavier;
  double a = 0, b = 0;  // uniform: [a, b); normal: mean a, std b; constant: a
  uint64_t seed = 0;    // 0: the process-wide generator

  static Initializer uniform(double lo, double hi, uint64_t seed = 0) {
    return {Kind::kUniform, lo, hi, seed};
  }
  static Initializer normal(double mean, double std, uint64_t seed = 0) {
    return {Kind::kNormal, mean, std, seed};
  }
  static Initializer constant(double value) { return {Kind::kConstant, value, 0, 0}; }
  // Uniform in ±sqrt(6 / (fan_in + fan_out)), fans from the first and last dims.
  static Initializer xavier(uint64_t seed = 0) { return {Kind::kXavier, 0, 0, seed}; }
};

class BlockBuilder {
 public:
  explicit BlockBuilder(Program* program, int block_idx = 0);

  Program& program() { return *program_; }
  Block& block() { return program_->block(block_idx_); }
  int block_idx() const { return block_idx_; }

  // Declares a variable the caller feeds (shape may hold -1 dims).
  std::string data(const std::string& name, DType dtype, const Shape& shape);
  // Declares a persistable variable: a parameter or optimizer state, kept in the
  // outer scope across runs.
  std::string persistable(const std::string& name, DType dtype, const Shape& shape);
  // Declares a trainable parameter here and appends its initializer to block 0 of
  // `startup` (which declares it too).
  std::string parameter(const std::string& name, DType dtype, const Shape& shape, Program* startup,
                        Initializer init = Initializer::xavier(),
                        SourceLoc loc = SourceLoc::current());
  // A name no variable of the program has yet: "<prefix>_<n>".
  std::string unique_name(const std::string& prefix);

  // Appends an op: fills default attrs, runs shape inference (declaring outputs),
  // records `loc`. Throws skiff::Error for an unknown op or inconsistent shapes.
  OpDesc& op(const std::string& type, std::vector<Slot> inputs, std::vector<Slot> outputs,
             const AttrList& attrs = {}, SourceLoc loc = SourceLoc::current());
  // Appends an op whose single output slot "Out" gets a fresh temporary; returns it.
  std::string apply(const std::string& type, std::vector<Slot> inputs, const AttrList& attrs = {},
                    SourceLoc loc = SourceLoc::current());
  // to = from (copies the value; the usual way to update a loop-carried variable).
  void assign(const std::string& from, const std::string& to, SourceLoc loc = SourceLoc::current());

  // A `while` op: runs `body` (built into a new sub-block) while `cond` holds; the
  // body must update `cond`. Its X/Out slots are derived from what the body uses.
  void while_loop(const std::string& cond, const std::function<void(BlockBuilder&)>& body,
                  SourceLoc loc = SourceLoc::current());
  // if/else on a bool scalar: each branch returns the variables it produces (the
  // same count, dtypes and shapes); returns the selected results.
  using Branch = std::function<std::vector<std::string>(BlockBuilder&)>;
  std::vector<std::string> if_else(const std::string& pred, const Branch& true_branch,
                                   const Branch& false_branch,
                                   SourceLoc loc = SourceLoc::current());

 private:
  // Builds `fn` into a new child block; returns its index.
  int build_sub_block(const std::function<void(BlockBuilder&)>& fn);
  // Outer variables a block (and its nested blocks) reads and writes.
  void outer_vars(int block_idx, std::vector<std::string>* reads,
                  std::vector<std::string>* writes) const;

  Program* program_;
  int block_idx_;
};

}  // namespace skiff
