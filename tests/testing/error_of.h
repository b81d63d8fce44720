// The message of the skiff::Error a call throws, for tests that check what an error says;
// header-only so that tests of libraries without libskiff (skiff_ps) use it too.
#pragma once

#include <functional>
#include <string>

#include "skiff/core/error.h"

namespace skiff::testing {

// The message of the skiff::Error that `fn` throws; "" when it throws none.
inline std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace skiff::testing
