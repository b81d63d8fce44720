#include "skiff/ir/attr.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace skiff {

const char* attr_type_name(AttrType t) {
  switch (t) {
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kString:
      return "string";
    case AttrType::kBool:
      return "bool";
    case AttrType::kInts:
      return "ints";
    case AttrType::kFloats:
      return "floats";
    case AttrType::kStrings:
      return "strings";
    case AttrType::kBlock:
      return "block";
    case AttrType::kBlocks:
      return "blocks";
  }
  return "unknown";
}

namespace {

template <typename T>
void join(std::ostringstream& os, const std::vector<T>& v) {
  os << "[";
  for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << v[i];
  os << "]";
}

}  // namespace

std::string attr_str(const Attr& a) {
  std::ostringstream os;
  switch (attr_type(a)) {
    case AttrType::kInt:
      os << std::get<int64_t>(a);
      break;
    case AttrType::kFloat:
      os << std::get<double>(a);
      break;
    case AttrType::kString:
      os << '"' << std::get<std::string>(a) << '"';
      break;
    case AttrType::kBool:
      os << (std::get<bool>(a) ? "true" : "false");
      break;
    case AttrType::kInts:
      join(os, std::get<std::vector<int64_t>>(a));
      break;
    case AttrType::kFloats:
      join(os, std::get<std::vector<double>>(a));
      break;
    case AttrType::kStrings: {
      const auto& v = std::get<std::vector<std::string>>(a);
      os << "[";
      for (size_t i = 0; i < v.size(); ++i) os << (i ? ", " : "") << '"' << v[i] << '"';
      os << "]";
      break;
    }
    case AttrType::kBlock:
      os << "block " << std::get<BlockRef>(a).idx;
      break;
    case AttrType::kBlocks: {
      os << "blocks ";
      join(os, std::get<BlockRefs>(a).idx);
      break;
    }
  }
  return os.str();
}

namespace {

// An int64 attribute value read as a narrower integer: out of range is an error, not a
// silently wrapped value.
template <typename T>
T narrowed(int64_t v, const char* name) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) < sizeof(int64_t)) {
    SKIFF_CHECK(v >= std::numeric_limits<T>::min() && v <= std::numeric_limits<T>::max(),
                "attribute '", name, "' is ", v, ", out of the range this op takes (",
                std::numeric_limits<T>::min(), " to ", std::numeric_limits<T>::max(), ")");
  }
  return static_cast<T>(v);
}

}  // namespace

template <typename T>
T attr_as(const Attr& a, const char* name) {
  if constexpr (std::is_arithmetic_v<T>) {
    if (auto* i = std::get_if<int64_t>(&a)) return narrowed<T>(*i, name);
    if (auto* f = std::get_if<double>(&a)) {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        // NaN or a value past T's range would make the conversion undefined.
        SKIFF_CHECK(*f >= static_cast<double>(std::numeric_limits<T>::min()) &&
                        *f <= static_cast<double>(std::numeric_limits<T>::max()),
                    "attribute '", name, "' is ", *f, ", not an integer this op takes");
      }
      return static_cast<T>(*f);
    }
    if (auto* b = std::get_if<bool>(&a)) return static_cast<T>(*b);
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    if (auto* v = std::get_if<std::vector<int64_t>>(&a)) {
      T out;
      out.reserve(v->size());
      for (int64_t x : *v) out.push_back(narrowed<int>(x, name));
      return out;
    }
  } else if constexpr (std::is_same_v<T, std::vector<float>>) {
    if (auto* v = std::get_if<std::vector<double>>(&a)) return T(v->begin(), v->end());
  } else {
    if (auto* v = std::get_if<T>(&a)) return *v;
  }
  fail("attribute '", name, "' has type ", attr_type_name(attr_type(a)),
       ", which cannot be read as the requested type");
}

template bool attr_as<bool>(const Attr&, const char*);
template int attr_as<int>(const Attr&, const char*);
template int64_t attr_as<int64_t>(const Attr&, const char*);
template float attr_as<float>(const Attr&, const char*);
template double attr_as<double>(const Attr&, const char*);
template std::string attr_as<std::string>(const Attr&, const char*);
template std::vector<int> attr_as<std::vector<int>>(const Attr&, const char*);
template std::vector<int64_t> attr_as<std::vector<int64_t>>(const Attr&, const char*);
template std::vector<float> attr_as<std::vector<float>>(const Attr&, const char*);
template std::vector<double> attr_as<std::vector<double>>(const Attr&, const char*);
template std::vector<std::string> attr_as<std::vector<std::string>>(const Attr&, const char*);
template BlockRef attr_as<BlockRef>(const Attr&, const char*);
template BlockRefs attr_as<BlockRefs>(const Attr&, const char*);

void AttrMap::set(const std::string& name, Attr value) {
  auto it = std::lower_bound(items_.begin(), items_.end(), name,
                             [](const auto& item, const std::string& n) { return item.first < n; });
  if (it != items_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    items_.insert(it, {name, std::move(value)});
  }
}

void AttrMap::erase(const std::string& name) {
  items_.erase(std::remove_if(items_.begin(), items_.end(),
                              [&](const auto& item) { return item.first == name; }),
               items_.end());
}

}  // namespace skiff
