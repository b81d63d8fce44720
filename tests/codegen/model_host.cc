// A host application of a compiled libmodel.so, for tests that run it on an emulated CPU:
// opens the library, makes a context and runs it once on zeros of the first input's shape
// (dynamic dims as 1). Prints what happened; exit status 0 when the model ran, 4 when
// skiff_model_create refused (the message is printed), 1 on any other failure.
//   model_host path/to/libmodel.so
#include <dlfcn.h>

#include <cstdio>
#include <vector>

#include "skiff/codegen/runtime/model_api.h"

namespace {

template <typename Fn>
Fn symbol(void* library, const char* name) {
  return reinterpret_cast<Fn>(dlsym(library, name));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: model_host LIBMODEL.so\n");
    return 1;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    std::fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  auto create = symbol<skiff_model* (*)(const char*)>(library, "skiff_model_create");
  auto run =
      symbol<int (*)(skiff_model*, const skiff_tensor*, skiff_tensor*)>(library, "skiff_model_run");
  auto last_error = symbol<const char* (*)()>(library, "skiff_model_last_error");
  auto input = symbol<const skiff_io* (*)(int)>(library, "skiff_model_input");
  auto num_outputs = symbol<int (*)()>(library, "skiff_model_num_outputs");
  auto destroy = symbol<void (*)(skiff_model*)>(library, "skiff_model_destroy");
  if (!create || !run || !last_error || !input || !num_outputs || !destroy) {
    std::fprintf(stderr, "libmodel.so lacks a function of model_api.h\n");
    return 1;
  }
  skiff_model* model = create(nullptr);
  if (!model) {
    std::printf("create failed: %s\n", last_error());
    return 4;
  }
  const skiff_io* spec = input(0);
  skiff_tensor in{};
  in.dtype = spec->dtype;
  in.rank = spec->rank;
  int64_t count = 1;
  for (int d = 0; d < spec->rank; ++d) {
    in.dims[d] = spec->dims[d] < 0 ? 1 : spec->dims[d];
    count *= in.dims[d];
  }
  std::vector<double> zeros(static_cast<size_t>(count));  // wide enough for any dtype
  in.data = zeros.data();
  std::vector<skiff_tensor> outputs(static_cast<size_t>(num_outputs()));
  if (run(model, &in, outputs.data()) != 0) {
    std::fprintf(stderr, "run failed: %s\n", last_error());
    return 1;
  }
  std::printf("ran\n");
  destroy(model);
  dlclose(library);
  return 0;
}
