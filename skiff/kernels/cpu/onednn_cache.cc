#include "skiff/kernels/cpu/onednn_cache.h"

#include "skiff/core/cpu.h"

namespace skiff::kernels {
namespace {

// oneDNN picks its own kernels by the CPU's features; under a cap (SKIFF_MAX_CPU_ISA) it
// gets the same one, so that a capped process runs what an older CPU would. oneDNN takes
// a cap only before its first kernel (primitive or sgemm): this runs when libskiff loads,
// after core/cpu_check.cc has read the cap.
bool cap_onednn_isa() {
  if (max_cpu_isa() >= cpu_best_isa()) return false;
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
  // Refused (and harmless) when ONEDNN_MAX_CPU_ISA set a cap first.
  return dnnl::set_max_cpu_isa(isa) == dnnl::status::success;
}

[[maybe_unused]] const bool kOnednnCapped = cap_onednn_isa();

}  // namespace

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& onednn_stream() {
  thread_local dnnl::stream stream(onednn_engine());
  return stream;
}

}  // namespace skiff::kernels
