#include "skiff/kernels/cpu/onednn_cache.h"

#include "skiff/core/cpu.h"

namespace skiff::kernels {
namespace {

// oneDNN picks its own kernels by the CPU's features; under a cap (SKIFF_MAX_CPU_ISA) it
// gets the same one, so that a capped process runs what an older CPU would. oneDNN takes
// a cap only before its first primitive: this runs when the engine is made.
void cap_onednn_isa() {
  if (max_cpu_isa() >= cpu_best_isa()) return;
  dnnl::cpu_isa isa = dnnl::cpu_isa::sse41;
  switch (max_cpu_isa()) {
    case CpuIsa::kGeneric:
      isa = dnnl::cpu_isa::sse41;
      break;
    case CpuIsa::kAvx2:
      isa = dnnl::cpu_isa::avx2;
      break;
    case CpuIsa::kAvx512:
      isa = dnnl::cpu_isa::avx512_core;
      break;
    case CpuIsa::kAvx512Bf16:
      isa = dnnl::cpu_isa::avx512_core_bf16;
      break;
  }
  dnnl::set_max_cpu_isa(isa);  // refused (and harmless) when ONEDNN_MAX_CPU_ISA set it first
}

}  // namespace

dnnl::engine& onednn_engine() {
  static dnnl::engine engine = [] {
    cap_onednn_isa();
    return dnnl::engine(dnnl::engine::kind::cpu, 0);
  }();
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

}  // namespace skiff::kernels
