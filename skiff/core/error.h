// Errors a user can cause end in a skiff::Error with a message that names the op,
// the variables and shapes involved. Build messages with SKIFF_CHECK:
//
//   SKIFF_CHECK(a.rank() == 2, "matmul: X must be 2-D, got ", a.shape());
#pragma once

#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace skiff {

// The one exception type of skiff; `what()` is the full message for the user.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
  // Throws an error of this one's kind with `message` (callers that add context, such as
  // the op that failed, keep the kind: Python maps each kind to its exception class).
  [[noreturn]] virtual void rethrow_with(const std::string& message) const { throw Error(message); }
};

// Memory for a tensor could not be had; Python sees skiff.OutOfMemoryError, a MemoryError.
class OutOfMemoryError : public Error {
 public:
  using Error::Error;
  [[noreturn]] void rethrow_with(const std::string& message) const override {
    throw OutOfMemoryError(message);
  }
};

// Concatenates any streamable values into one string.
template <typename... Args>
std::string str_cat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}

// Throws skiff::Error built from the message parts.
template <typename... Args>
[[noreturn]] void fail(Args&&... args) {
  throw Error(str_cat(std::forward<Args>(args)...));
}

}  // namespace skiff

#define SKIFF_CHECK(cond, ...)          \
  do {                                  \
    if (__builtin_expect(!(cond), 0)) { \
      ::skiff::fail(__VA_ARGS__);       \
    }                                   \
  } while (0)
