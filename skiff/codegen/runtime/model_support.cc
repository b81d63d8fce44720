#include "skiff/codegen/runtime/model_support.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "skiff/core/error.h"

namespace skiff::codegen {

namespace {

constexpr char kMagic[] = "SKIFFPRM";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr uint32_t kParamsVersion = 1;
constexpr size_t kHeaderSize = kMagicSize + 4;

// CRC-32 (IEEE, reflected, as zlib computes it), table-driven.
uint32_t crc32_of(const char* data, size_t size) {
  static const auto table = [] {
    std::vector<uint32_t> t(256);
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t crc = 0xffffffffu;
  for (size_t i = 0; i < size; ++i)
    crc = table[(crc ^ static_cast<unsigned char>(data[i])) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

// Little-endian fields of [pos, end); running past the end is an error.
class FieldReader {
 public:
  FieldReader(const char* bytes, size_t pos, size_t end) : bytes_(bytes), pos_(pos), end_(end) {}
  uint64_t number(int bytes) {
    const char* p = take(static_cast<size_t>(bytes));
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
      value |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return value;
  }
  const char* take(size_t n) {
    SKIFF_CHECK(n <= end_ - pos_, "parameters: a record runs past the end of the data");
    const char* p = bytes_ + pos_;
    pos_ += n;
    return p;
  }

 private:
  const char* bytes_;
  size_t pos_, end_;
};

std::string dims_str(const int64_t* dims, int rank) {
  std::ostringstream os;
  os << "[";
  for (int i = 0; i < rank; ++i) os << (i ? ", " : "") << dims[i];
  os << "]";
  return os.str();
}

}  // namespace

ParamImage parse_param_image(const char* bytes, size_t size) {
  SKIFF_CHECK(size >= kHeaderSize + 12 && std::memcmp(bytes, kMagic, kMagicSize) == 0,
              "not a skiff parameter image (it does not start with \"", kMagic, "\")");
  FieldReader header(bytes, kMagicSize, kHeaderSize);
  const uint64_t version = header.number(4);
  SKIFF_CHECK(version == kParamsVersion, "parameter format version ", version, ", expected ",
              kParamsVersion);
  const size_t payload_end = size - 4;
  FieldReader trailer(bytes, payload_end, size);
  SKIFF_CHECK(trailer.number(4) == crc32_of(bytes + kHeaderSize, payload_end - kHeaderSize),
              "parameters: checksum mismatch (corrupt or truncated)");
  FieldReader in(bytes, kHeaderSize, payload_end);
  const uint64_t count = in.number(8);
  ParamImage out;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t name_size = in.number(4);
    std::string name(in.take(name_size), name_size);
    const int dtype = static_cast<int>(in.number(1)), rank = static_cast<int>(in.number(1));
    SKIFF_CHECK(is_dtype_number(dtype) && rank <= Shape::kMaxRank, "parameter '", name,
                "': bad dtype ", dtype, " or rank ", rank);
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(static_cast<int64_t>(in.number(8)));
    Tensor t = Tensor::empty(shape, static_cast<DType>(dtype));
    const uint64_t nbytes = in.number(8);
    SKIFF_CHECK(nbytes == t.nbytes(), "parameter '", name, "' holds ", nbytes, " bytes, ",
                t.type_str(), " needs ", t.nbytes());
    if (nbytes > 0) std::memcpy(t.raw_data(), in.take(nbytes), nbytes);
    out.emplace_back(std::move(name), std::move(t));
  }
  return out;
}

ParamImage read_param_image(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  SKIFF_CHECK(f.good(), "cannot open the parameter file '", path, "'");
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  try {
    return parse_param_image(bytes.data(), bytes.size());
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

void take_param(ParamImage* image, const char* name, DType dtype, const Shape& shape, Tensor* dst) {
  for (auto& [n, t] : *image) {
    if (n != name) continue;
    bool fits = t.dtype() == dtype && t.rank() == shape.rank();
    for (int d = 0; fits && d < shape.rank(); ++d) fits = shape[d] < 0 || shape[d] == t.dim(d);
    SKIFF_CHECK(fits, "parameter '", name, "' is ", t.type_str(), " but the program declares ",
                dtype_name(dtype), shape);
    *dst = std::move(t);
    return;
  }
  fail("the parameters hold no '", name, "'");
}

Tensor embedded_tensor(const char* data, DType dtype, const Shape& shape, bool writable) {
  Tensor t;
  if (writable) {
    t = Tensor::empty(shape, dtype);
    if (t.nbytes() > 0) std::memcpy(t.raw_data(), data, t.nbytes());
    return t;
  }
  // Never written: the kernels only read it, so the array itself serves as storage.
  const size_t bytes = static_cast<size_t>(shape.numel()) * dtype_size(dtype);
  auto storage = std::make_shared<Storage>(const_cast<char*>(data), bytes, cpu_place(), [] {});
  return Tensor::from_storage(std::move(storage), shape, dtype);
}

void feed_input(const skiff_tensor& input, const skiff_io& spec, Tensor* dst) {
  bool fits = input.dtype == spec.dtype && input.rank == spec.rank;
  for (int d = 0; fits && d < spec.rank; ++d)
    fits = input.dims[d] >= 0 && (spec.dims[d] < 0 || spec.dims[d] == input.dims[d]);
  SKIFF_CHECK(fits && is_dtype_number(input.dtype), "input '", spec.name, "' must be ",
              dtype_name(static_cast<DType>(spec.dtype)), dims_str(spec.dims, spec.rank), ", got ",
              is_dtype_number(input.dtype) ? dtype_name(static_cast<DType>(input.dtype)) : "?",
              dims_str(input.dims, input.rank));
  Shape shape;
  for (int d = 0; d < input.rank; ++d) shape.push_back(input.dims[d]);
  dst->resize(shape, static_cast<DType>(input.dtype));
  SKIFF_CHECK(input.data || dst->nbytes() == 0, "input '", spec.name, "' has no data");
  if (dst->nbytes() > 0) std::memcpy(dst->raw_data(), input.data, dst->nbytes());
}

void view_tensor(const Tensor& value, const char* name, skiff_tensor* out) {
  SKIFF_CHECK(value.initialized(), "variable '", name, "' holds no value after the run");
  out->dtype = static_cast<int>(value.dtype());
  out->rank = value.rank();
  for (int d = 0; d < value.rank(); ++d) out->dims[d] = value.dim(d);
  out->data = const_cast<void*>(value.raw_data());
}

void bad_condition(const Tensor& cond, const char* what) {
  fail(what, ": the condition must hold one element, got ",
       cond.initialized() ? cond.type_str() : std::string("no value"));
}

void bad_static_input(const Tensor& t, int64_t numel, DType dtype, const char* what) {
  fail(what, ": an input the program declares as ", numel, " elements of ", dtype_name(dtype),
       " holds ", t.initialized() ? t.type_str() : std::string("no value"));
}

int64_t select_index(const Tensor& mask, size_t count, const char* what) {
  SKIFF_CHECK(mask.initialized() && mask.numel() == 1, what, ": Mask must hold one element");
  const int64_t k = mask.item<int64_t>();
  SKIFF_CHECK(k >= 0 && k < static_cast<int64_t>(count), what, ": Mask ", k,
              " is out of range for ", count, " inputs");
  return k;
}

const Tensor& select_input(const Tensor& mask, std::initializer_list<const Tensor*> inputs,
                           const char* what) {
  const int64_t k = select_index(mask, inputs.size(), what);
  const Tensor& chosen = *inputs.begin()[k];
  SKIFF_CHECK(chosen.initialized(), what, ": X[", k, "], selected by Mask, has no value");
  return chosen;
}

const TensorArray& select_input(const Tensor& mask,
                                std::initializer_list<const TensorArray*> inputs,
                                const char* what) {
  return *inputs.begin()[select_index(mask, inputs.size(), what)];
}

namespace {
thread_local std::string g_last_error;
}  // namespace

void set_last_error(const std::string& message) { g_last_error = message; }
const char* last_error() { return g_last_error.c_str(); }

}  // namespace skiff::codegen
