// The CPU skiff runs on: its features (read once with cpuid), the instruction set the
// kernels may use, and the check that the CPU runs what a binary was compiled for.
//
// libskiff is compiled for a portable baseline (x86-64-v3 by default, CMake's
// SKIFF_BASELINE); the few kernels that gain from newer instructions have extra
// translation units compiled for one instruction set each (`*_avx2.cc`, `*_avx512.cc`,
// ...), which overload a function on the tag of their set; dispatch_isa calls the best one:
//
//   void pool_2x2(GenericIsa, const float* x, float* y);     // portable, pool_planes.cc
//   void pool_2x2(Avx512Isa, const float* x, float* y);      // pool_planes_avx512.cc
//   dispatch_isa([&](auto isa) { pool_2x2(isa, x, y); });
//
// kernel_isa() is the best set the CPU has, capped by the environment variable
// SKIFF_MAX_CPU_ISA (generic, avx2, avx512, avx512_bf16) or set_max_cpu_isa(); the cap
// reaches oneDNN too, so one variable makes a machine behave like an older CPU.
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace skiff {

// Instruction sets that kernels are written for; each includes the ones before it.
enum class CpuIsa : int {
  kGeneric = 0,     // portable C++ only (vectorised for the build's baseline)
  kAvx2 = 1,        // AVX2 + FMA (the features of x86-64-v3)
  kAvx512 = 2,      // AVX-512 F, CD, BW, DQ, VL (the features of x86-64-v4)
  kAvx512Bf16 = 3,  // kAvx512 with the BF16 conversions (AVX512_BF16)
};

// "generic", "avx2", "avx512", "avx512_bf16".
const char* cpu_isa_name(CpuIsa isa);
// The set named `name`; throws skiff::Error listing the names for an unknown one.
CpuIsa cpu_isa_from_name(const std::string& name);
// The CpuIsa number of `name`, or -1 (plain C: cpu_check.cc calls it at load).
int cpu_isa_index(const char* name);

// True when this CPU (and the operating system, for the register state) has `feature`,
// named as /proc/cpuinfo names it ("avx2", "fma", "avx512f", "avx512_bf16", ...) except
// sse3 and lzcnt (Linux: pni, abm); cpu_feature_names() lists them. Unknown names: false.
bool cpu_has(const std::string& feature);
// Every feature skiff can detect, in a fixed order.
std::vector<std::string> cpu_feature_names();
// The features of this CPU among cpu_feature_names().
std::vector<std::string> cpu_features();

// The best instruction set of this CPU, ignoring any cap.
CpuIsa cpu_best_isa();
// The features libskiff's baseline code was compiled to use (space-separated), and the
// name of that baseline ("x86-64-v3", "native", ...). cpu_check.cc stops the process when
// the library loads on a CPU without them.
const char* cpu_baseline_features();
const char* cpu_baseline_name();

// Caps kernel_isa() at `isa` (never above the CPU's best). Kernels read it at each call;
// oneDNN takes the cap only before its first primitive (use SKIFF_MAX_CPU_ISA for both).
void set_max_cpu_isa(CpuIsa isa);
// The cap set by SKIFF_MAX_CPU_ISA or set_max_cpu_isa(), or kAvx512Bf16 when none.
CpuIsa max_cpu_isa();

// The set kernels use now: cpu_best_isa() capped by max_cpu_isa(). One relaxed load.
extern std::atomic<int> g_kernel_isa;
inline CpuIsa kernel_isa() {
  return static_cast<CpuIsa>(g_kernel_isa.load(std::memory_order_relaxed));
}

// Tags of the instruction sets, each derived from the one it extends, so that overload
// resolution picks the most capable set a kernel has for the tag dispatch_isa passes.
struct GenericIsa {};
struct Avx2Isa : GenericIsa {};
struct Avx512Isa : Avx2Isa {};
struct Avx512Bf16Isa : Avx512Isa {};

// fn(tag of kernel_isa()): one relaxed load and a switch. Built with SKIFF_NO_ISA_KERNELS
// (code compiled without the per-instruction-set files), always fn(GenericIsa{}).
template <typename Fn>
decltype(auto) dispatch_isa(Fn&& fn) {
#ifndef SKIFF_NO_ISA_KERNELS
  switch (kernel_isa()) {
    case CpuIsa::kAvx512Bf16:
      return fn(Avx512Bf16Isa{});
    case CpuIsa::kAvx512:
      return fn(Avx512Isa{});
    case CpuIsa::kAvx2:
      return fn(Avx2Isa{});
    case CpuIsa::kGeneric:
      break;
  }
#endif
  return fn(GenericIsa{});
}

// Writes into `out` (a buffer of `size` bytes, NUL-terminated) the features of the
// space-separated list `features` that this CPU lacks, space-separated; returns their
// number. Plain C inside: it runs before any code compiled for a newer CPU.
int cpu_missing_features(const char* features, char* out, int size);

}  // namespace skiff
