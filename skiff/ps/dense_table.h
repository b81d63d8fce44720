// A parameter server's dense table: one float vector (a dense parameter, or a slice of
// one) updated as a whole by a server-side optimizer; thread-safe.
//
//   DenseTable fc("fc_w", 4096, init, adam);
//   fc.pull(values);  // 4096 floats
//   fc.push(grads);   // one optimizer step
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "skiff/ps/initializer.h"
#include "skiff/ps/row_optimizer.h"

namespace skiff::ps {

class DenseTable {
 public:
  // A vector of `size` floats initialized as elements [first_element, first_element + size)
  // of the initializer's stream for id 0, so slices of one vector held by several servers
  // (each with its offset) start as the whole vector would. Errors name the table.
  DenseTable(std::string name, int64_t size, const InitializerConfig& init,
             OptimizerConfig optimizer, int64_t first_element = 0);

  const std::string& name() const { return name_; }
  int64_t size() const { return size_; }
  const OptimizerConfig& optimizer() const { return optimizer_; }

  // Copies the values into out[0, size).
  void pull(float* out) const;
  // One optimizer update of the whole vector by grad[0, size).
  void push(const float* grad);
  // Adds delta[0, size) to the values without the optimizer (geo mode).
  void push_delta(const float* delta);
  // Sets the values to values[0, size) (a trainer's initial parameters); the optimizer
  // state stays.
  void assign(const float* values);
  // Pushes applied so far (push and push_delta).
  uint64_t pushes() const;

  // Writes the values and optimizer state to `path` atomically (path + ".tmp", fsync,
  // rename).
  void save(const std::string& path) const;
  // Replaces values and state with a file written by save() for the same size and
  // optimizer; errors name the file.
  void load(const std::string& path);

 private:
  std::string name_;
  int64_t size_;
  OptimizerConfig optimizer_;
  mutable std::mutex mu_;
  std::vector<float> value_, state_;
  uint64_t pushes_ = 0;
};

}  // namespace skiff::ps
