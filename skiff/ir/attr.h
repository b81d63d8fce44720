// Typed op attributes. A block reference is its own type so that the verifier and
// printer can tell `sub_block = 1` from an integer.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "skiff/core/error.h"

namespace skiff {

// Numbering is part of the file format (proto Attr.type): never renumber.
enum class AttrType : int {
  kInt = 0,      // int64_t
  kFloat = 1,    // double
  kString = 2,   // std::string
  kBool = 3,     // bool
  kInts = 4,     // std::vector<int64_t>
  kFloats = 5,   // std::vector<double>
  kStrings = 6,  // std::vector<std::string>
  kBlock = 7,    // BlockRef
  kBlocks = 8,   // BlockRefs
};

// Index of a block of the same program.
struct BlockRef {
  int32_t idx = -1;
  bool operator==(const BlockRef& o) const { return idx == o.idx; }
};
struct BlockRefs {
  std::vector<int32_t> idx;
  bool operator==(const BlockRefs& o) const { return idx == o.idx; }
};

using Attr = std::variant<int64_t, double, std::string, bool, std::vector<int64_t>,
                          std::vector<double>, std::vector<std::string>, BlockRef, BlockRefs>;

inline AttrType attr_type(const Attr& a) { return static_cast<AttrType>(a.index()); }
const char* attr_type_name(AttrType t);
// Text form of a value, as the printer shows it.
std::string attr_str(const Attr& a);

// Reads an attr as T, converting among the numeric scalar types (so that int, float,
// int64 and double all read an int or float attr). Throws on other mismatches.
template <typename T>
T attr_as(const Attr& a, const char* name);

// A small ordered name → value list (ops have a handful of attrs; a linear scan of a
// few short strings is faster than a map).
// True when `s` spells `name`. Always inlined: with a literal `name` (a kernel's slot
// or attr name) the length is a constant and the test a length compare and a load or
// two, where a strcmp call on every match cost the interpreter ~20% of a small op.
[[gnu::always_inline]] inline bool name_is(const std::string& s, const char* name) {
  const size_t n = std::strlen(name);
  return s.size() == n && std::memcmp(s.data(), name, n) == 0;
}

class AttrMap {
 public:
  [[gnu::always_inline]] const Attr* find(const char* name) const {
    for (const auto& [k, v] : items_)
      if (name_is(k, name)) return &v;
    return nullptr;
  }
  const Attr* find(const std::string& name) const { return find(name.c_str()); }
  bool has(const std::string& name) const { return find(name) != nullptr; }
  void set(const std::string& name, Attr value);
  void erase(const std::string& name);
  const std::vector<std::pair<std::string, Attr>>& items() const { return items_; }
  size_t size() const { return items_.size(); }
  bool operator==(const AttrMap& o) const { return items_ == o.items_; }

 private:
  std::vector<std::pair<std::string, Attr>> items_;  // sorted by name
};

}  // namespace skiff
