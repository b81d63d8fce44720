// compile_model: generate the sources into the output folder, check the parameters, build.
#include <filesystem>
#include <fstream>

#include "skiff/codegen/codegen.h"
#include "skiff/codegen/program_emitter.h"
#include "skiff/codegen/target.h"
#include "skiff/core/error.h"
#include "skiff/formats/params_file.h"
#include "skiff/ir/file_io.h"
#include "skiff/ir/serialize.h"

namespace skiff::codegen {

namespace fs = std::filesystem;

namespace {

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  SKIFF_CHECK(f.good(), "cannot write '", path, "'");
}

// Every persistable variable the program uses must be in the parameter file, with its
// declared dtype and dims.
void check_params(const Program& program, const NamedTensors& params, const std::string& path) {
  ProgramEmitter emitter(program);
  for (const ProgramVar& v : emitter.vars()) {
    if (!v.desc || !v.desc->persistable) continue;
    const Tensor* found = nullptr;
    for (const auto& [name, t] : params)
      if (name == v.name) found = &t;
    SKIFF_CHECK(found, "the program uses the persistable variable '", v.name, "', which is not in ",
                path.empty() ? "the parameters (no .skparams file)" : path);
    bool fits = found->dtype() == v.desc->dtype && found->rank() == v.desc->shape.rank();
    for (int d = 0; fits && d < found->rank(); ++d)
      fits = v.desc->shape[d] < 0 || v.desc->shape[d] == found->dim(d);
    SKIFF_CHECK(fits, "parameter '", v.name, "' in ", path, " is ", found->type_str(),
                " but the program declares ", dtype_name(v.desc->dtype), v.desc->shape);
  }
}

}  // namespace

CompiledModel compile_model(const Program& program, const std::string& params_path,
                            const CompileOptions& options) {
  SKIFF_CHECK(!options.out_dir.empty(), "no output folder");
  const Target& target = find_target(options.target);
  fs::create_directories(options.out_dir);
  const std::string dir = fs::absolute(options.out_dir).string();

  const NamedTensors params = params_path.empty() ? NamedTensors{} : load_params(params_path);
  check_params(program, params, params_path);
  CodegenOptions codegen = options;
  codegen.target = target.name;
  codegen.cpu = target_cpu(target, options.cpu);
  CompiledModel out;
  out.generated = generate_model(program, params, codegen);

  out.source = dir + "/model.cc";
  write_text(out.source, out.generated.model_cc);
  fs::remove(dir + "/model_params.cc");
  if (options.embed_params) {
    write_text(dir + "/model_params.cc", out.generated.model_params);
  } else {
    SKIFF_CHECK(!params_path.empty(), "--params file needs a .skparams file");
    out.params_file = dir + "/model.skparams";
    if (fs::absolute(params_path) != fs::path(out.params_file))
      fs::copy_file(params_path, out.params_file, fs::copy_options::overwrite_existing);
  }
  build_model(target, codegen.cpu, dir, out.generated.kernel_families, out.generated.distributed,
              options.shared_library, options.jobs);
  out.executable = dir + "/model";
  if (options.shared_library) {
    out.library = dir + "/libmodel.so";
    out.header = dir + "/model.h";
    const std::string api = read_file(skiff_source_dir() + "/skiff/codegen/runtime/model_api.h");
    write_text(out.header, out.generated.model_h + api);
  }
  return out;
}

CompiledModel compile_model_file(const std::string& model_path, const CompileOptions& options) {
  const Program program = load_program(model_path);
  std::string params = fs::path(model_path).replace_extension(".skparams").string();
  if (!fs::exists(params)) params.clear();
  CompileOptions o = options;
  if (o.origin == CodegenOptions().origin) o.origin = fs::path(model_path).filename().string();
  return compile_model(program, params, o);
}

}  // namespace skiff::codegen
