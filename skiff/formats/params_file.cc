#include "skiff/formats/params_file.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "skiff/ir/file_io.h"

namespace skiff {

namespace {

constexpr char kMagic[] = "SKIFFPRM";
constexpr size_t kMagicSize = sizeof(kMagic) - 1;
constexpr uint32_t kParamsVersion = 1;
constexpr size_t kHeaderSize = kMagicSize + 4;
constexpr size_t kChecksumSize = 4;

uint32_t crc32_of(const char* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    uInt chunk = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data), chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

void put(std::string* out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

// Reads little-endian fields from [pos, end) of a buffer; running past `end` is an
// error (possible only in a file forged to pass its checksum).
class FieldReader {
 public:
  FieldReader(const std::string& bytes, size_t pos, size_t end)
      : bytes_(bytes), pos_(pos), end_(end) {}

  uint64_t number(int bytes) {
    const char* p = take(static_cast<size_t>(bytes));
    uint64_t value = 0;
    for (int i = 0; i < bytes; ++i)
      value |= static_cast<uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    return value;
  }
  const char* take(size_t n) {
    SKIFF_CHECK(n <= end_ - pos_, "a record runs past the end of the data");
    const char* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }
  bool at_end() const { return pos_ == end_; }

 private:
  const std::string& bytes_;
  size_t pos_;
  size_t end_;
};

std::string params_to_bytes(const NamedTensors& tensors) {
  std::string out(kMagic, kMagicSize);
  put(&out, kParamsVersion, 4);
  std::set<std::string> names;
  put(&out, tensors.size(), 8);
  for (const auto& [name, t] : tensors) {
    SKIFF_CHECK(!name.empty(), "a tensor to save has an empty name");
    SKIFF_CHECK(names.insert(name).second, "two tensors to save are both named '", name, "'");
    SKIFF_CHECK(t.initialized(), "tensor '", name, "' has no value to save");
    put(&out, name.size(), 4);
    out += name;
    put(&out, static_cast<uint64_t>(t.dtype()), 1);
    put(&out, static_cast<uint64_t>(t.rank()), 1);
    for (int64_t d : t.shape()) put(&out, static_cast<uint64_t>(d), 8);
    put(&out, t.nbytes(), 8);
    out.append(static_cast<const char*>(t.raw_data()), t.nbytes());
  }
  put(&out, crc32_of(out.data() + kHeaderSize, out.size() - kHeaderSize), 4);
  return out;
}

Tensor read_tensor(FieldReader& in, const std::string& name) {
  const int dtype = static_cast<int>(in.number(1));
  SKIFF_CHECK(is_dtype_number(dtype), "tensor '", name, "' has unknown dtype number ", dtype);
  const int rank = static_cast<int>(in.number(1));
  SKIFF_CHECK(rank <= Shape::kMaxRank, "tensor '", name, "' has rank ", rank,
              ", above the supported ", Shape::kMaxRank);
  Shape shape;
  uint64_t numel = 1;
  for (int i = 0; i < rank; ++i) {
    const int64_t d = static_cast<int64_t>(in.number(8));
    SKIFF_CHECK(d >= 0, "tensor '", name, "' has a negative dim ", d);
    SKIFF_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel), "tensor '", name,
                "' has an impossibly large shape");
    shape.push_back(d);
  }
  const DType type = static_cast<DType>(dtype);
  const uint64_t nbytes = in.number(8);
  uint64_t expected = 0;
  SKIFF_CHECK(!__builtin_mul_overflow(numel, dtype_size(type), &expected) && nbytes == expected,
              "tensor '", name, "' (", dtype_name(type), shape, ") holds ", nbytes,
              " data bytes, expected ", expected);
  const char* data = in.take(nbytes);
  if (type == DType::kBool) {
    for (uint64_t i = 0; i < nbytes; ++i) {
      SKIFF_CHECK(static_cast<unsigned char>(data[i]) <= 1, "tensor '", name,
                  "' holds a bool that is neither 0 nor 1");
    }
  }
  Tensor t = Tensor::empty(shape, type);
  if (nbytes > 0) std::memcpy(t.raw_data(), data, nbytes);
  return t;
}

NamedTensors params_from_bytes(const std::string& bytes) {
  SKIFF_CHECK(bytes.size() >= kMagicSize && bytes.compare(0, kMagicSize, kMagic) == 0,
              "not a skiff parameter file (it does not start with \"", kMagic, "\")");
  SKIFF_CHECK(bytes.size() >= kHeaderSize + 8 + kChecksumSize, "the file is truncated (",
              bytes.size(), " bytes)");
  FieldReader header(bytes, kMagicSize, kHeaderSize);
  const uint64_t version = header.number(4);
  SKIFF_CHECK(version == kParamsVersion, "the file was written by parameter format version ",
              version, ", this skiff reads version ", kParamsVersion);
  const size_t payload_end = bytes.size() - kChecksumSize;
  FieldReader trailer(bytes, payload_end, bytes.size());
  const uint32_t stored = static_cast<uint32_t>(trailer.number(4));
  const uint32_t actual = crc32_of(bytes.data() + kHeaderSize, payload_end - kHeaderSize);
  SKIFF_CHECK(stored == actual, "checksum mismatch: the file is corrupt or truncated");

  FieldReader in(bytes, kHeaderSize, payload_end);
  const uint64_t count = in.number(8);
  NamedTensors out;
  std::set<std::string> names;
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t name_size = in.number(4);
    std::string name(in.take(name_size), name_size);
    SKIFF_CHECK(!name.empty() && names.insert(name).second, "tensor ", i,
                " has an empty or repeated name '", name, "'");
    Tensor t = read_tensor(in, name);
    out.emplace_back(std::move(name), std::move(t));
  }
  SKIFF_CHECK(in.at_end(), "unexpected data after the last of ", count, " tensors");
  return out;
}

const VarDesc& declaration(const Program& program, const std::string& name) {
  for (const Block& block : program.blocks())
    if (const VarDesc* v = block.find_local_var(name)) return *v;
  fail("variable '", name, "' is not declared");
}

bool matches_declaration(const Tensor& t, const VarDesc& var) {
  if (t.dtype() != var.dtype || t.rank() != var.shape.rank()) return false;
  for (int i = 0; i < t.rank(); ++i)
    if (var.shape[i] >= 0 && var.shape[i] != t.shape()[i]) return false;
  return true;
}

std::string some_names(const NamedTensors& tensors) {
  constexpr size_t kShown = 8;
  std::string out;
  for (size_t i = 0; i < tensors.size() && i < kShown; ++i)
    out += (i ? ", " : "") + tensors[i].first;
  if (tensors.size() > kShown) out += str_cat(", ... (", tensors.size(), " in all)");
  return out.empty() ? "no tensors" : out;
}

}  // namespace

void save_params(const std::string& path, const NamedTensors& tensors) {
  std::string bytes;
  try {
    bytes = params_to_bytes(tensors);
  } catch (const Error& e) {
    fail("cannot save parameters to '", path, "': ", e.what());
  }
  write_file_atomically(path, bytes);
}

NamedTensors load_params(const std::string& path) {
  std::string bytes = read_file(path);
  try {
    return params_from_bytes(bytes);
  } catch (const Error& e) {
    fail("cannot load parameters from '", path, "': ", e.what());
  }
}

std::vector<std::string> persistable_names(const Program& program) {
  std::set<std::string> names;
  for (const Block& block : program.blocks())
    for (const auto& [name, var] : block.vars)
      if (var.persistable && var.kind == VarKind::kDenseTensor) names.insert(name);
  return {names.begin(), names.end()};
}

NamedTensors load_program_params(const std::string& path, const Program& program) {
  NamedTensors tensors = load_params(path);
  std::map<std::string, const Tensor*> by_name;
  for (const auto& [name, t] : tensors) by_name[name] = &t;
  NamedTensors out;
  for (const std::string& name : persistable_names(program)) {
    auto it = by_name.find(name);
    SKIFF_CHECK(it != by_name.end(), "'", path, "' has no tensor for persistable variable '", name,
                "' (it holds ", some_names(tensors), ")");
    const VarDesc& var = declaration(program, name);
    SKIFF_CHECK(matches_declaration(*it->second, var), "'", path, "' holds ", name, " as ",
                it->second->type_str(), ", but the program declares it ", dtype_name(var.dtype),
                var.shape);
    out.emplace_back(name, *it->second);
  }
  return out;
}

}  // namespace skiff
