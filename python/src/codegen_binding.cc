// The compiler (codegen/codegen.h) from Python: skiff.jit.compile.
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "skiff/codegen/codegen.h"

namespace skiff::python {

void define_codegen(nb::module_& m) {
  m.def(
      "compile_model_file",
      [](const std::string& model, const std::string& out_dir, const std::string& target,
         bool shared_library, bool embed_params, const std::vector<std::string>& feeds,
         const std::vector<std::string>& fetches, const std::string& cpu) {
        codegen::CompileOptions options;
        options.out_dir = out_dir;
        options.target = target;
        options.cpu = cpu;
        options.shared_library = shared_library;
        options.embed_params = embed_params;
        options.feeds = feeds;
        options.fetches = fetches;
        codegen::CompiledModel compiled;
        {
          nb::gil_scoped_release no_gil;  // the C++ compiler runs for seconds
          compiled = codegen::compile_model_file(model, options);
        }
        nb::dict out;
        out["source"] = compiled.source;
        out["executable"] = compiled.executable;
        out["library"] = compiled.library;
        out["header"] = compiled.header;
        out["params_file"] = compiled.params_file;
        out["inputs"] = compiled.generated.inputs;
        out["outputs"] = compiled.generated.outputs;
        return out;
      },
      nb::arg("model"), nb::arg("out_dir"), nb::arg("target") = "x86-64",
      nb::arg("shared_library") = false, nb::arg("embed_params") = true,
      nb::arg("feeds") = std::vector<std::string>{},
      nb::arg("fetches") = std::vector<std::string>{}, nb::arg("cpu") = "",
      "Compiles a .skmodel (and the .skparams beside it) into out_dir: model.cc, the "
      "executable `model`, and with shared_library libmodel.so + model.h, for the CPU `cpu` "
      "(-march; '' : the target's default, x86-64-v3 on x86-64).");
}

}  // namespace skiff::python
