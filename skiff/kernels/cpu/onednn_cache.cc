#include "skiff/kernels/cpu/onednn_cache.h"

namespace skiff::kernels {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

}  // namespace skiff::kernels
