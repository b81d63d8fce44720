// Where a tensor's memory lives. Only the CPU exists now; CUDA is reserved so that
// kernels and the registry are keyed by place from the start.
#pragma once

#include <string>

namespace skiff {

enum class DeviceType : int { kCPU = 0, kCUDA = 1 };

struct Place {
  DeviceType type = DeviceType::kCPU;
  int index = 0;

  bool operator==(const Place& o) const { return type == o.type && index == o.index; }
  std::string str() const {
    return type == DeviceType::kCPU ? "cpu" : "cuda:" + std::to_string(index);
  }
};

inline Place cpu_place() { return Place{}; }

}  // namespace skiff
