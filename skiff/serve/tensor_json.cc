#include "skiff/serve/tensor_json.h"

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "skiff/kernels/cpu/bf16_convert.h"
#include "skiff/serve/infer_types.h"

namespace skiff::serve {

namespace {

using nlohmann::json;

// The values of a flat or nested array in row-major order, without recursion (nesting
// depth is the client's choice). Stops collecting past `limit` values but keeps counting.
std::vector<const json*> leaves_of(const json& data, size_t limit, size_t* count) {
  std::vector<const json*> leaves;
  std::vector<std::pair<const json*, size_t>> stack{{&data, 0}};
  *count = 0;
  while (!stack.empty()) {
    const json* array = stack.back().first;
    const size_t next = stack.back().second++;
    if (next == array->size()) {
      stack.pop_back();
      continue;
    }
    const json& value = (*array)[next];
    if (value.is_array()) {
      stack.emplace_back(&value, 0);
    } else if ((*count)++ < limit) {
      leaves.push_back(&value);
    }
  }
  return leaves;
}

// How a rejected value reads in a message: a number or boolean as written, else its kind.
std::string describe(const json& value) {
  if (value.is_number() || value.is_boolean() || value.is_null()) return value.dump();
  return value.is_string() ? "a string" : "an object";
}

[[noreturn]] void bad_value(const std::string& where, size_t i, const json& value,
                            const char* reason, DType dtype) {
  bad_request(where, ": data[", i, "] is ", describe(value), ", ", reason, " ",
              datatype_name(dtype));
}

template <typename T>
T integer_value(const json& v, const std::string& where, size_t i) {
  using Limits = std::numeric_limits<T>;
  constexpr DType dtype = dtype_of<T>;
  if (v.is_number_unsigned()) {
    const uint64_t x = v.get<uint64_t>();
    if (x <= static_cast<uint64_t>(Limits::max())) return static_cast<T>(x);
  } else if (v.is_number_integer()) {
    const int64_t x = v.get<int64_t>();
    if (x >= Limits::min() && x <= Limits::max()) return static_cast<T>(x);
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d != std::trunc(d)) bad_value(where, i, v, "not an integer as needed by", dtype);
    // max + 1 is a power of two, exact as a double even for int64.
    if (d >= static_cast<double>(Limits::min()) && d < static_cast<double>(Limits::max()) + 1.0)
      return static_cast<T>(d);
  } else {
    bad_value(where, i, v, "not a number as needed by", dtype);
  }
  bad_value(where, i, v, "out of range for", dtype);
}

double float_value(const json& v, const std::string& where, size_t i, DType dtype) {
  if (!v.is_number()) bad_value(where, i, v, "not a number as needed by", dtype);
  return v.get<double>();
}

template <typename T>
void fill_integers(const std::vector<const json*>& leaves, Tensor* t, const std::string& where) {
  T* out = t->data<T>();
  for (size_t i = 0; i < leaves.size(); ++i) out[i] = integer_value<T>(*leaves[i], where, i);
}

void fill(const std::vector<const json*>& leaves, Tensor* t, const std::string& where) {
  const DType dtype = t->dtype();
  switch (dtype) {
    case DType::kBool: {
      bool* out = t->data<bool>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        if (!leaves[i]->is_boolean())
          bad_value(where, i, *leaves[i], "not true or false as", dtype);
        out[i] = leaves[i]->get<bool>();
      }
      return;
    }
    case DType::kU8:
      return fill_integers<uint8_t>(leaves, t, where);
    case DType::kI8:
      return fill_integers<int8_t>(leaves, t, where);
    case DType::kI16:
      return fill_integers<int16_t>(leaves, t, where);
    case DType::kI32:
      return fill_integers<int32_t>(leaves, t, where);
    case DType::kI64:
      return fill_integers<int64_t>(leaves, t, where);
    case DType::kF32: {
      float* out = t->data<float>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        // A double past float's range converts to infinity (IEEE), caught here.
        out[i] = static_cast<float>(float_value(*leaves[i], where, i, dtype));
        if (!std::isfinite(out[i])) bad_value(where, i, *leaves[i], "out of range for", dtype);
      }
      return;
    }
    case DType::kF64: {
      double* out = t->data<double>();
      for (size_t i = 0; i < leaves.size(); ++i) out[i] = float_value(*leaves[i], where, i, dtype);
      return;
    }
    case DType::kBF16: {
      bfloat16* out = t->data<bfloat16>();
      for (size_t i = 0; i < leaves.size(); ++i) {
        out[i] = kernels::bf16_from_double(float_value(*leaves[i], where, i, dtype));
        if (!std::isfinite(static_cast<float>(out[i])))
          bad_value(where, i, *leaves[i], "out of range for", dtype);
      }
      return;
    }
    default:
      bad_request(where, ": ", dtype_name(dtype), " has no JSON form");
  }
}

template <typename T, typename Json = T>
void append_values(const Tensor& t, nlohmann::ordered_json::array_t* out) {
  const T* p = t.data<T>();
  for (int64_t i = 0; i < t.numel(); ++i) out->emplace_back(static_cast<Json>(p[i]));
}

}  // namespace

Tensor tensor_from_json(const json& data, const Shape& shape, DType dtype,
                        const std::string& where) {
  if (!data.is_array()) bad_request(where, ": 'data' must be an array, got ", data.type_name());
  const size_t numel = static_cast<size_t>(shape.numel());
  size_t count = 0;
  const std::vector<const json*> leaves = leaves_of(data, numel, &count);
  if (count != numel)
    bad_request(where, ": 'data' holds ", count, " values but shape ", shape, " has ", numel,
                " elements");
  Tensor t = Tensor::empty(shape, dtype);
  fill(leaves, &t, where);
  return t;
}

nlohmann::ordered_json tensor_to_json(const Tensor& tensor) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  auto* values = out.get_ptr<nlohmann::ordered_json::array_t*>();
  values->reserve(static_cast<size_t>(tensor.numel()));
  switch (tensor.dtype()) {
    case DType::kBool:
      append_values<bool>(tensor, values);
      break;
    case DType::kU8:
      append_values<uint8_t, uint64_t>(tensor, values);
      break;
    case DType::kI8:
      append_values<int8_t, int64_t>(tensor, values);
      break;
    case DType::kI16:
      append_values<int16_t, int64_t>(tensor, values);
      break;
    case DType::kI32:
      append_values<int32_t, int64_t>(tensor, values);
      break;
    case DType::kI64:
      append_values<int64_t>(tensor, values);
      break;
    case DType::kF32:
      append_values<float, double>(tensor, values);
      break;
    case DType::kF64:
      append_values<double>(tensor, values);
      break;
    case DType::kBF16: {
      const bfloat16* p = tensor.data<bfloat16>();
      for (int64_t i = 0; i < tensor.numel(); ++i)
        values->emplace_back(static_cast<double>(static_cast<float>(p[i])));
      break;
    }
    default:
      fail("tensor_to_json: ", dtype_name(tensor.dtype()), " has no JSON form");
  }
  return out;
}

}  // namespace skiff::serve
