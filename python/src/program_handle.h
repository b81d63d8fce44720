// A program as Python holds it (skiff._C.Program): the IR plus a revision number
// that every edit changes, so executors can cache prepared programs by revision.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "skiff/ir/program.h"

namespace skiff::python {

struct ProgramHandle {
  ProgramHandle() : ir(std::make_shared<Program>()), revision(next_revision()) {}
  explicit ProgramHandle(Program p)
      : ir(std::make_shared<Program>(std::move(p))), revision(next_revision()) {}

  // Marks an edit: the program gets a revision no program of this process had.
  void touched() { revision = next_revision(); }

  static uint64_t next_revision() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }

  std::shared_ptr<Program> ir;
  uint64_t revision;
};

}  // namespace skiff::python
