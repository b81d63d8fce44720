// Text of a C++ file being generated: lines at the current indentation, with blocks
// opened and closed around them.
//
//   CppWriter w;
//   w.open("while (cond) {");
//   w.line("step();");
//   w.close();                 // "}"
//   std::string text = w.str();
#pragma once

#include <string>

namespace skiff::codegen {

class CppWriter {
 public:
  // `indent`: the nesting level of the first line (a function body written apart).
  explicit CppWriter(int indent = 0) : indent_(indent) {}

  // One line at the current indentation (an empty `text` gives an empty line).
  void line(const std::string& text) {
    if (!text.empty()) text_.append(static_cast<size_t>(indent_) * 2, ' ').append(text);
    text_ += '\n';
  }
  // A line that opens a block ("if (c) {"); what follows is indented one level more.
  void open(const std::string& text) {
    line(text);
    ++indent_;
  }
  // Ends the innermost block with `text` ("}" or "};").
  void close(const std::string& text = "}") {
    --indent_;
    line(text);
  }
  // Appends `text` as it is (already formatted lines).
  void raw(const std::string& text) { text_ += text; }
  const std::string& str() const { return text_; }
  // The current nesting level.
  int indent() const { return indent_; }

 private:
  std::string text_;
  int indent_ = 0;
};

}  // namespace skiff::codegen
