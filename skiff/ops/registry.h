// The op registry: one entry per op type holding its schema, shape inference,
// kernels by (place, dtype) and grad maker. Each op family registers its ops in its
// own file through one builder:
//
//   void register_activation_ops(OpRegistry& r) {
//     r.add("tanh")
//         .doc("Out = tanh(X), elementwise.")
//         .input("X", "any shape")
//         .output("Out", "same shape as X")
//         .infer_shape(infer_out_like_x)
//         .kernel({DType::kF32, DType::kF64}, tanh_kernel)
//         .grad(tanh_grad_maker);
//   }
//
// OpRegistry::global() holds every op of skiff, registered on first use.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "skiff/core/dtype.h"
#include "skiff/core/place.h"
#include "skiff/ir/op_schema.h"
#include "skiff/ir/program.h"

namespace skiff {

class KernelContext;
class ShapeContext;
class GradContext;
class EmitContext;

// Computes an op's outputs from its inputs; sizes its outputs itself.
using KernelFn = void (*)(KernelContext&);
// Sets output dtypes and (possibly partly unknown) shapes in the block's VarDescs.
using InferShapeFn = void (*)(ShapeContext&);
// Appends the grad ops of one forward op.
using GradMakerFn = void (*)(GradContext&);
// Writes the op's kernel call as C++ for the compiler: a binding (ops/binding.h)
// instantiated with EmitContext.
using EmitFn = void (*)(EmitContext&);

// The traits passes and the runtime read instead of matching op types by name.

// What an op that runs sub-blocks does with its `sub_block`: the runtime runs it by this
// role, append_backward differentiates the forward roles, the compiler writes them as C++
// loops and ifs.
enum class BlockRole {
  kNone,        // runs no block
  kLoop,        // runs the block while a condition holds (while)
  kBranch,      // runs the block once if a condition holds (conditional_block)
  kLoopGrad,    // runs a loop's grad block over its kept step scopes in reverse
  kBranchGrad,  // runs a branch's grad block if the branch ran
};
const char* block_role_name(BlockRole role);

// The slots of a block op (forward or grad): the outer variables its body reads and
// writes, its kept step scopes and its condition.
struct BlockSlots {
  const char* reads = "";
  const char* writes = "";
  const char* scopes = "";
  const char* cond = "";
};

// How auto_cast (mixed precision) treats an op.
enum class AmpPolicy {
  kFollow,        // runs on the dtype its inputs have (at O2 on bfloat16 if it has a kernel)
  kLowPrecision,  // compute-bound: auto_cast runs it on bfloat16 inputs (the white list)
  kFloat32,       // numerically sensitive: auto_cast keeps it in float32 (the black list)
};
const char* amp_policy_name(AmpPolicy policy);

// A float op's int8 form (passes/int8.h): its input and weight slots, the weight's rank
// and output-channel axis (along which a per-channel scale runs), and the int8 op with
// its slots.
struct Int8Form {
  const char* x = "";
  const char* w = "";
  const char* out = "";
  int64_t w_rank = 0;
  int64_t w_axis = 0;
  const char* int8_op = "";
  const char* int8_x = "";
  const char* int8_w = "";
  const char* x_scale = "";
  const char* w_scale = "";
  const char* int8_out = "";
};

struct OpInfo {
  OpSchema schema;
  InferShapeFn infer_shape = nullptr;
  GradMakerFn grad = nullptr;
  // Kernels by (device, dtype of the input slot named below, or of the first output).
  std::map<std::pair<DeviceType, DType>, KernelFn> kernels;
  std::string kernel_dtype_slot;
  // The binding the compiler runs, when the kernels are a binding (ops/binding.h).
  EmitFn emit = nullptr;
  // Ops that run sub-blocks (block_role != kNone) are run by the runtime itself.
  BlockRole block_role = BlockRole::kNone;
  BlockSlots block_slots;
  AmpPolicy amp = AmpPolicy::kFollow;
  std::optional<Int8Form> int8_form;
  // Out holds X's values rearranged, none changed (reshape, transpose, ...): an
  // elementwise map of the values (a quantization) gives the same before or after it.
  bool moves_values = false;
  // Out is X's values in X's order under another shape (reshape, flatten, squeeze,
  // unsqueeze): in eager mode Out is a view of X, sharing its memory (eager/views.h).
  bool views_input = false;
  // Out may name an input (an update in place, `i = scale(i)`): the kernel computes each
  // Out element from input elements of the same (or a broadcast) index, read before it is
  // written (elementwise arithmetic, activations, scale, increment).
  bool writes_in_place = false;

  bool runs_blocks() const { return block_role != BlockRole::kNone; }
  // A loop or a branch (not their grads): append_backward differentiates through it.
  bool runs_forward_block() const {
    return block_role == BlockRole::kLoop || block_role == BlockRole::kBranch;
  }

  // The kernel for (place, dtype); nullptr when none is registered.
  KernelFn find_kernel(Place place, DType dtype) const;
  bool differentiable() const { return grad != nullptr; }
};

// Chainable setters for one OpInfo (see the example at the top).
class OpBuilder {
 public:
  explicit OpBuilder(OpInfo* info) : info_(info) {}
  OpBuilder& doc(std::string text);
  OpBuilder& input(std::string name, std::string doc);
  OpBuilder& inputs(std::string name, std::string doc);  // duplicable
  OpBuilder& optional_input(std::string name, std::string doc);
  OpBuilder& output(std::string name, std::string doc);
  OpBuilder& outputs(std::string name, std::string doc);  // duplicable
  OpBuilder& optional_output(std::string name, std::string doc);
  // An attribute with a default value (its type is the value's type).
  OpBuilder& attr(std::string name, Attr default_value, std::string doc);
  // An attribute the program must set.
  OpBuilder& required_attr(std::string name, AttrType type, std::string doc);
  OpBuilder& infer_shape(InferShapeFn fn);
  OpBuilder& kernel(std::initializer_list<DType> dtypes, KernelFn fn,
                    DeviceType device = DeviceType::kCPU);
  // A binding (ops/binding.h): `run` is its KernelContext instantiation, registered as the
  // kernel for `dtypes`; `emit` its EmitContext one, which the compiler runs.
  OpBuilder& bind(std::initializer_list<DType> dtypes, KernelFn run, EmitFn emit);
  // Pick the kernel by the dtype of this input slot instead of the first output's.
  OpBuilder& kernel_dtype_from(std::string input_slot);
  OpBuilder& grad(GradMakerFn fn);
  // The op runs its `sub_block` in `role`, through `slots` (see BlockRole).
  OpBuilder& runs_blocks(BlockRole role, BlockSlots slots);
  OpBuilder& amp(AmpPolicy policy);
  OpBuilder& int8_form(Int8Form form);
  OpBuilder& moves_values();
  OpBuilder& views_input();
  OpBuilder& writes_in_place();

 private:
  OpInfo* info_;
};

class OpRegistry {
 public:
  // The registry with every op of skiff.
  static const OpRegistry& global();

  // Starts the registration of a new op type; a second add of one type throws.
  OpBuilder add(const std::string& type);
  // The op's entry, or nullptr.
  const OpInfo* find(const std::string& type) const;
  // The op's entry; throws skiff::Error naming the unknown type.
  const OpInfo& get(const std::string& type) const;
  // All registered op types, sorted.
  std::vector<std::string> types() const;

 private:
  std::map<std::string, std::unique_ptr<OpInfo>> ops_;
};

// The one way ops join the global registry: each op family's file (ops/<family>.cc, and
// the files of layers above ops whose kernels call into them: the runtime's run_program,
// the parameter server's ps_* ops) ends with one static registrar of its function,
//
//   const OpRegistrar kActivationOps(register_activation_ops);
//
// The registry is built on first use from every registrar (libraries are shared, so every
// family file's registrar has run by then); a registrar constructed after that throws.
class OpRegistrar {
 public:
  explicit OpRegistrar(void (*add_ops)(OpRegistry&));
};

// The schema of `type` in the global registry, or nullptr (for the verifier).
const OpSchema* find_op_schema(const std::string& type);
// Adds the schema's default value of every attr the op does not set.
void fill_default_attrs(OpDesc& op);

}  // namespace skiff
