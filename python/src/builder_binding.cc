// Control flow for programs built from Python (api/builder.h): the same `while` and
// if/else (`conditional_block` pair + `select_input`) IR the C++ builder makes, with
// the bodies built by Python callbacks that receive the new sub-block's index.
#include <nanobind/stl/function.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "python/src/bindings.h"
#include "python/src/program_handle.h"
#include "skiff/api/builder.h"

namespace skiff::python {

namespace {

// "file.py:12" -> SourceLoc over `file` (which must outlive the call).
SourceLoc loc_from(const std::string& source, std::string* file) {
  size_t colon = source.rfind(':');
  if (colon == std::string::npos) {
    *file = source;
    return SourceLoc{file->c_str(), 0};
  }
  *file = source.substr(0, colon);
  int line = 0;
  for (size_t i = colon + 1; i < source.size() && source[i] >= '0' && source[i] <= '9'; ++i)
    line = line * 10 + (source[i] - '0');
  return SourceLoc{file->c_str(), line};
}

void check_block(ProgramHandle& p, int b) {
  SKIFF_CHECK(b >= 0 && b < p.ir->num_blocks(), "block ", b, " does not exist");
}

}  // namespace

void define_builder(nb::module_& m) {
  m.def(
      "while_loop",
      [](ProgramHandle& p, int block, const std::string& cond, const std::function<void(int)>& body,
         const std::string& source) {
        check_block(p, block);
        std::string file;
        SourceLoc loc = loc_from(source, &file);
        BlockBuilder b(p.ir.get(), block);
        p.touched();
        b.while_loop(
            cond, [&](BlockBuilder& sub) { body(sub.block_idx()); }, loc);
        p.touched();
      },
      nb::arg("program"), nb::arg("block"), nb::arg("cond"), nb::arg("body"),
      nb::arg("source") = "",
      "Appends a `while` op to `block`: body(sub_block_idx) builds the loop body, which "
      "must write `cond`.");
  m.def(
      "if_else",
      [](ProgramHandle& p, int block, const std::string& pred,
         const std::function<std::vector<std::string>(int)>& true_fn,
         const std::function<std::vector<std::string>(int)>& false_fn, const std::string& source) {
        check_block(p, block);
        std::string file;
        SourceLoc loc = loc_from(source, &file);
        BlockBuilder b(p.ir.get(), block);
        p.touched();
        auto outs = b.if_else(
            pred, [&](BlockBuilder& sub) { return true_fn(sub.block_idx()); },
            [&](BlockBuilder& sub) { return false_fn(sub.block_idx()); }, loc);
        p.touched();
        return outs;
      },
      nb::arg("program"), nb::arg("block"), nb::arg("pred"), nb::arg("true_fn"),
      nb::arg("false_fn"), nb::arg("source") = "",
      "Appends if/else on bool scalar `pred`: each fn(sub_block_idx) builds a branch and "
      "returns the names it produces; returns the selected results' names.");
}

}  // namespace skiff::python
