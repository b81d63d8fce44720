#include "skiff/serve/model_backend.h"

#include <dlfcn.h>

#include <cstring>

#include "skiff/codegen/runtime/model_api.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"
#include "skiff/runtime/executor.h"
#include "skiff/runtime/persistables.h"
#include "skiff/runtime/scope.h"

namespace skiff::serve {

namespace {

TensorSignature spec_of(const Block& block, const std::string& name, const std::string& path) {
  const VarDesc* var = block.find_local_var(name);
  SKIFF_CHECK(var, "'", path, "': feed or fetch variable '", name, "' is not declared");
  return {name, var->dtype, var->shape.vec()};
}

// The program and its parameters; per instance a scope under the parameters' scope and a
// prepared block (bindings are cached per scope, so each instance keeps its own).
class ProgramModel : public ModelBackend {
 public:
  ProgramModel(const std::string& program_path, const std::string& params_path, int instances)
      : program_(load_program(program_path)) {
    try {
      verify_program(program_, find_op_schema);
    } catch (const Error& e) {
      fail("'", program_path, "' is not a valid program: ", e.what());
    }
    SKIFF_CHECK(!program_.fetch_names.empty(), "'", program_path,
                "' names no fetch targets (save it with skiff.jit.save)");
    const Block& block = program_.global_block();
    for (const std::string& n : program_.feed_names)
      signature_.inputs.push_back(spec_of(block, n, program_path));
    for (const std::string& n : program_.fetch_names)
      signature_.outputs.push_back(spec_of(block, n, program_path));
    load_persistables(params_path, program_, &params_);
    for (int i = 0; i < instances; ++i) {
      instances_.push_back(
          {&params_.new_child(), executor_.prepare(program_, program_.fetch_names)});
    }
  }

  const Signature& signature() const override { return signature_; }
  int num_instances() const override { return static_cast<int>(instances_.size()); }
  const char* platform() const override { return "skiff_program"; }

  std::vector<Tensor> run(int instance, const std::vector<Tensor>& inputs) override {
    Instance& in = instances_.at(static_cast<size_t>(instance));
    for (size_t i = 0; i < inputs.size(); ++i)
      feed(program_, in.scope, signature_.inputs[i].name, inputs[i]);
    executor_.run(*in.block, in.scope);
    std::vector<Tensor> out;
    // The scope's tensors are rewritten by the next run: hand out copies.
    for (const TensorSignature& o : signature_.outputs)
      out.push_back(fetch(*in.scope, o.name).clone());
    return out;
  }

 private:
  struct Instance {
    Scope* scope;
    std::shared_ptr<PreparedBlock> block;
  };
  Program program_;
  Signature signature_;
  Scope params_;
  Executor executor_;
  std::vector<Instance> instances_;
};

// The C API of a compiled model library, looked up once.
struct ModelApi {
  decltype(&skiff_model_num_inputs) num_inputs;
  decltype(&skiff_model_input) input;
  decltype(&skiff_model_num_outputs) num_outputs;
  decltype(&skiff_model_output) output;
  decltype(&skiff_model_params_embedded) params_embedded;
  decltype(&skiff_model_create) create;
  decltype(&skiff_model_run) run;
  decltype(&skiff_model_destroy) destroy;
  decltype(&skiff_model_last_error) last_error;
  decltype(&skiff_model_cpu_error) cpu_error;
};

template <typename F>
void bind_symbol(void* handle, const char* name, const std::string& path, F* out) {
  void* symbol = dlsym(handle, name);
  SKIFF_CHECK(symbol, "'", path, "' is not a compiled skiff model library: no symbol ", name);
  *out = reinterpret_cast<F>(symbol);
}

TensorSignature spec_of(const skiff_io& io) {
  SKIFF_CHECK(is_dtype_number(io.dtype), "compiled model: input/output '", io.name,
              "' has dtype number ", io.dtype);
  return {io.name, static_cast<DType>(io.dtype), std::vector<int64_t>(io.dims, io.dims + io.rank)};
}

class CompiledModel : public ModelBackend {
 public:
  CompiledModel(const std::string& path, const std::string& params_path, int instances)
      : path_(path) {
    handle_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    SKIFF_CHECK(handle_, "cannot load the compiled model '", path, "': ", dlerror());
    try {
      bind_symbol(handle_, "skiff_model_num_inputs", path, &api_.num_inputs);
      bind_symbol(handle_, "skiff_model_input", path, &api_.input);
      bind_symbol(handle_, "skiff_model_num_outputs", path, &api_.num_outputs);
      bind_symbol(handle_, "skiff_model_output", path, &api_.output);
      bind_symbol(handle_, "skiff_model_params_embedded", path, &api_.params_embedded);
      bind_symbol(handle_, "skiff_model_create", path, &api_.create);
      bind_symbol(handle_, "skiff_model_run", path, &api_.run);
      bind_symbol(handle_, "skiff_model_destroy", path, &api_.destroy);
      bind_symbol(handle_, "skiff_model_last_error", path, &api_.last_error);
      bind_symbol(handle_, "skiff_model_cpu_error", path, &api_.cpu_error);
      if (const char* cpu = api_.cpu_error()) fail("'", path, "' cannot run on this CPU: ", cpu);
      for (int i = 0; i < api_.num_inputs(); ++i)
        signature_.inputs.push_back(spec_of(*api_.input(i)));
      for (int i = 0; i < api_.num_outputs(); ++i)
        signature_.outputs.push_back(spec_of(*api_.output(i)));
      const bool embedded = api_.params_embedded() != 0;
      SKIFF_CHECK(embedded || !params_path.empty(), "'", path,
                  "' was compiled with --params file, but its version folder has no .skparams");
      for (int i = 0; i < instances; ++i) {
        skiff_model* m = api_.create(embedded ? nullptr : params_path.c_str());
        SKIFF_CHECK(m, "'", path, "': creating a model context failed: ", api_.last_error());
        contexts_.push_back(m);
      }
    } catch (...) {
      release();
      throw;
    }
  }
  ~CompiledModel() override { release(); }

  const Signature& signature() const override { return signature_; }
  int num_instances() const override { return static_cast<int>(contexts_.size()); }
  const char* platform() const override { return "skiff_compiled"; }

  std::vector<Tensor> run(int instance, const std::vector<Tensor>& inputs) override {
    std::vector<skiff_tensor> in(inputs.size()), out(signature_.outputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& t = inputs[i];
      SKIFF_CHECK(t.rank() <= SKIFF_MAX_RANK, "input '", signature_.inputs[i].name, "' has rank ",
                  t.rank(), " (compiled models take at most ", SKIFF_MAX_RANK, ")");
      in[i].dtype = static_cast<int>(t.dtype());
      in[i].rank = t.rank();
      for (int d = 0; d < t.rank(); ++d) in[i].dims[d] = t.dim(d);
      in[i].data = const_cast<void*>(t.raw_data());
    }
    skiff_model* m = contexts_.at(static_cast<size_t>(instance));
    if (api_.run(m, in.data(), out.data()) != 0) fail("'", path_, "': ", api_.last_error());
    std::vector<Tensor> result;
    for (const skiff_tensor& o : out) {
      // Views into the context, valid until its next run: copy them out.
      Tensor t = Tensor::empty(Shape(std::vector<int64_t>(o.dims, o.dims + o.rank)),
                               static_cast<DType>(o.dtype));
      std::memcpy(t.raw_data(), o.data, t.nbytes());
      result.push_back(std::move(t));
    }
    return result;
  }

 private:
  void release() {
    for (skiff_model* m : contexts_) api_.destroy(m);
    contexts_.clear();
    if (handle_) dlclose(handle_);
    handle_ = nullptr;
  }

  std::string path_;
  void* handle_ = nullptr;
  ModelApi api_{};
  Signature signature_;
  std::vector<skiff_model*> contexts_;
};

}  // namespace

std::unique_ptr<ModelBackend> load_program_model(const std::string& program_path,
                                                 const std::string& params_path, int instances) {
  SKIFF_CHECK(instances >= 1, "a model needs at least one instance, got ", instances);
  return std::make_unique<ProgramModel>(program_path, params_path, instances);
}

std::unique_ptr<ModelBackend> load_compiled_model(const std::string& library_path,
                                                  const std::string& params_path, int instances) {
  SKIFF_CHECK(instances >= 1, "a model needs at least one instance, got ", instances);
  return std::make_unique<CompiledModel>(library_path, params_path, instances);
}

}  // namespace skiff::serve
