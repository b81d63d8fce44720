// The memory plan of a prepared block: buffers of temporaries that died are kept in
// a pool and handed to temporaries born later, so that a block run many times (a
// training step) allocates nothing in steady state and its peak memory is that of
// its live temporaries, not of all of them.
#pragma once

#include <cstddef>
#include <map>
#include <memory>

#include "skiff/core/allocator.h"
#include "skiff/core/variable.h"
#include "skiff/ir/program.h"

namespace skiff {

class BufferPool {
 public:
  // Takes the dead variable's buffer (its tensor's, or its selected rows' value) into
  // the pool when no one else shares it, and clears the variable.
  void recycle(Variable* var);
  // Before a temporary of `kind` (a dense tensor or selected rows) is written:
  // attaches the smallest pooled buffer of at least `bytes` (what it needed last run)
  // to its tensor or its selected rows' value, if there is one.
  void provide(Variable* var, size_t bytes, VarKind kind = VarKind::kDenseTensor);
  size_t pooled_bytes() const;

 private:
  // By size, so that the best fit is one lookup (a block of hundreds of temporaries of
  // the same size scanned a list of them per op).
  std::multimap<size_t, std::shared_ptr<Storage>> free_;
};

}  // namespace skiff
