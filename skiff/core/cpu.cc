// Compiled for the oldest x86-64 (CMake gives this file no -march): cpu_check.cc and the
// check of compiled models call cpu_missing_features before any code compiled for a newer
// CPU may run. That path is plain C for the same reason: an inline C++ function shared with
// files compiled for a newer CPU could be linked in their form.
#include "skiff/core/cpu.h"

#include <cstdio>
#include <cstring>

#include "skiff/core/error.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define SKIFF_CPU_X86 1
#endif

namespace skiff {

std::atomic<int> g_kernel_isa{static_cast<int>(CpuIsa::kGeneric)};

namespace {

enum Reg { kEax, kEbx, kEcx, kEdx };

// XCR0 bits the operating system sets when it saves a register file across switches.
constexpr unsigned kXmmState = 0x2, kYmmState = 0x4, kZmmState = 0xe0;

struct Feature {
  const char* name;
  unsigned leaf, subleaf;
  Reg reg;
  int bit;
  unsigned xcr0;  // register state the OS must save for the feature to be usable
};

// cpuid leaves and bits from the Intel SDM (vol. 2A, CPUID) and AMD's APM (vol. 3).
constexpr Feature kFeatures[] = {
    {"sse2", 1, 0, kEdx, 26, kXmmState},
    {"sse3", 1, 0, kEcx, 0, kXmmState},
    {"ssse3", 1, 0, kEcx, 9, kXmmState},
    {"sse4_1", 1, 0, kEcx, 19, kXmmState},
    {"sse4_2", 1, 0, kEcx, 20, kXmmState},
    {"popcnt", 1, 0, kEcx, 23, 0},
    {"avx", 1, 0, kEcx, 28, kXmmState | kYmmState},
    {"avx2", 7, 0, kEbx, 5, kXmmState | kYmmState},
    {"fma", 1, 0, kEcx, 12, kXmmState | kYmmState},
    {"f16c", 1, 0, kEcx, 29, kXmmState | kYmmState},
    {"bmi1", 7, 0, kEbx, 3, 0},
    {"bmi2", 7, 0, kEbx, 8, 0},
    {"lzcnt", 0x80000001u, 0, kEcx, 5, 0},
    {"movbe", 1, 0, kEcx, 22, 0},
    {"avx512f", 7, 0, kEbx, 16, kXmmState | kYmmState | kZmmState},
    {"avx512cd", 7, 0, kEbx, 28, kXmmState | kYmmState | kZmmState},
    {"avx512bw", 7, 0, kEbx, 30, kXmmState | kYmmState | kZmmState},
    {"avx512dq", 7, 0, kEbx, 17, kXmmState | kYmmState | kZmmState},
    {"avx512vl", 7, 0, kEbx, 31, kXmmState | kYmmState | kZmmState},
    {"avx512ifma", 7, 0, kEbx, 21, kXmmState | kYmmState | kZmmState},
    {"avx512vbmi", 7, 0, kEcx, 1, kXmmState | kYmmState | kZmmState},
    {"avx512_vbmi2", 7, 0, kEcx, 6, kXmmState | kYmmState | kZmmState},
    {"avx512_vnni", 7, 0, kEcx, 11, kXmmState | kYmmState | kZmmState},
    {"avx512_bitalg", 7, 0, kEcx, 12, kXmmState | kYmmState | kZmmState},
    {"avx512_vpopcntdq", 7, 0, kEcx, 14, kXmmState | kYmmState | kZmmState},
    {"avx512_bf16", 7, 1, kEax, 5, kXmmState | kYmmState | kZmmState},
    {"avx512_fp16", 7, 0, kEdx, 23, kXmmState | kYmmState | kZmmState},
    {"avx_vnni", 7, 1, kEax, 4, kXmmState | kYmmState},
};
constexpr int kFeatureCount = sizeof(kFeatures) / sizeof(kFeatures[0]);

// Features that each instruction set of CpuIsa needs, on top of the one before.
constexpr const char* kAvx2Needs = "avx avx2 fma";
constexpr const char* kAvx512Needs = "avx512f avx512cd avx512bw avx512dq avx512vl";
// (Every CPU with AVX512_BF16 has AVX512_VNNI; the set's kernels use both.)
constexpr const char* kAvx512Bf16Needs = "avx512_bf16 avx512_vnni";
constexpr const char* kIsaNames[] = {"generic", "avx2", "avx512", "avx512_bf16"};
constexpr int kIsaCount = sizeof(kIsaNames) / sizeof(kIsaNames[0]);

// Which entries of kFeatures this CPU has; filled once, before anything else runs.
bool g_detected = false;
bool g_has[kFeatureCount];
int g_max_isa = kIsaCount - 1;

#ifdef SKIFF_CPU_X86
unsigned read_xcr0() {
  unsigned eax, edx;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return eax;
}
#endif

void detect() {
  if (g_detected) return;
  g_detected = true;
#ifdef SKIFF_CPU_X86
  unsigned a, b, c, d;
  const unsigned max_leaf = __get_cpuid_max(0, nullptr);
  const unsigned max_ext = __get_cpuid_max(0x80000000u, nullptr);
  unsigned xcr0 = 0;
  if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1u << 27))) xcr0 = read_xcr0();  // OSXSAVE
  for (int i = 0; i < kFeatureCount; ++i) {
    const Feature& f = kFeatures[i];
    const unsigned top = f.leaf >= 0x80000000u ? max_ext : max_leaf;
    g_has[i] = false;
    if (f.leaf > top || !__get_cpuid_count(f.leaf, f.subleaf, &a, &b, &c, &d)) continue;
    const unsigned regs[4] = {a, b, c, d};
    const bool xmm_only = f.xcr0 == kXmmState;  // SSE state needs no OS opt-in check
    g_has[i] = (regs[f.reg] >> f.bit & 1u) && (xmm_only || (xcr0 & f.xcr0) == f.xcr0);
  }
#else
  for (bool& h : g_has) h = false;
#endif
}

int feature_index(const char* name, size_t len) {
  for (int i = 0; i < kFeatureCount; ++i)
    if (std::strlen(kFeatures[i].name) == len && std::strncmp(kFeatures[i].name, name, len) == 0)
      return i;
  return -1;
}

// Calls fn(word, length) for each space-separated word of `list`.
template <typename Fn>
void for_each_word(const char* list, Fn&& fn) {
  const char* p = list;
  while (*p) {
    while (*p == ' ') ++p;
    const char* start = p;
    while (*p && *p != ' ') ++p;
    if (p > start) fn(start, static_cast<size_t>(p - start));
  }
}

bool has_all(const char* list) {
  char missing[8];
  return cpu_missing_features(list, missing, sizeof missing) == 0;
}

int best_isa() {
  detect();
  if (!has_all(kAvx2Needs)) return static_cast<int>(CpuIsa::kGeneric);
  if (!has_all(kAvx512Needs)) return static_cast<int>(CpuIsa::kAvx2);
  if (!has_all(kAvx512Bf16Needs)) return static_cast<int>(CpuIsa::kAvx512);
  return static_cast<int>(CpuIsa::kAvx512Bf16);
}

void update_kernel_isa() {
  const int best = best_isa();
  g_kernel_isa.store(best < g_max_isa ? best : g_max_isa, std::memory_order_relaxed);
}

}  // namespace

int cpu_missing_features(const char* features, char* out, int size) {
  detect();
  int count = 0, used = 0;
  bool full = size <= 0;
  if (!full) out[0] = '\0';
  for_each_word(features, [&](const char* word, size_t len) {
    const int i = feature_index(word, len);
    if (i >= 0 && g_has[i]) return;
    ++count;
    if (full) return;
    // Whole words only: one that does not fit ends the list.
    if (used + 1 + static_cast<int>(len) >= size) {
      out[used] = '\0';
      full = true;
      return;
    }
    used += std::snprintf(out + used, size - used, " %.*s", static_cast<int>(len), word);
  });
  return count;
}

const char* cpu_isa_name(CpuIsa isa) { return kIsaNames[static_cast<int>(isa)]; }

int cpu_isa_index(const char* name) {
  for (int i = 0; i < kIsaCount; ++i)
    if (std::strcmp(name, kIsaNames[i]) == 0) return i;
  return -1;
}

CpuIsa cpu_isa_from_name(const std::string& name) {
  const int i = cpu_isa_index(name.c_str());
  if (i >= 0) return static_cast<CpuIsa>(i);
  fail("unknown instruction set '", name, "'; the sets are generic, avx2, avx512, avx512_bf16");
}

bool cpu_has(const std::string& feature) {
  detect();
  const int i = feature_index(feature.data(), feature.size());
  return i >= 0 && g_has[i];
}

std::vector<std::string> cpu_feature_names() {
  std::vector<std::string> out;
  for (const Feature& f : kFeatures) out.emplace_back(f.name);
  return out;
}

std::vector<std::string> cpu_features() {
  detect();
  std::vector<std::string> out;
  for (int i = 0; i < kFeatureCount; ++i)
    if (g_has[i]) out.emplace_back(kFeatures[i].name);
  return out;
}

CpuIsa cpu_best_isa() { return static_cast<CpuIsa>(best_isa()); }

void set_max_cpu_isa(CpuIsa isa) {
  g_max_isa = static_cast<int>(isa);
  update_kernel_isa();
}

CpuIsa max_cpu_isa() { return static_cast<CpuIsa>(g_max_isa); }

}  // namespace skiff
