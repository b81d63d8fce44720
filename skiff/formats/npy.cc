#include "skiff/formats/npy.h"

#include <cctype>
#include <cstring>
#include <map>

#include "skiff/ir/file_io.h"

namespace skiff {

namespace {

constexpr char kNpyMagic[] = "\x93NUMPY";
constexpr size_t kNpyMagicSize = 6;
constexpr size_t kHeaderAlign = 64;

// The numpy type string of each dtype ("<f4"); `|` marks a single-byte type.
const char* npy_descr(DType t) {
  switch (t) {
    case DType::kF32:
      return "<f4";
    case DType::kF64:
      return "<f8";
    case DType::kI32:
      return "<i4";
    case DType::kI64:
      return "<i8";
    case DType::kBool:
      return "|b1";
    case DType::kI8:
      return "|i1";
    case DType::kU8:
      return "|u1";
    case DType::kI16:
      return "<i2";
    case DType::kC64:
      return "<c8";
    case DType::kC128:
      return "<c16";
    case DType::kBF16:
      fail(
          "the .npy format has no bfloat16 type: cast the tensor to float32 first (the cast "
          "op; exact), or keep it in a .skparams file");
  }
  fail("unknown dtype ", static_cast<int>(t));
}

DType dtype_from_descr(const std::string& descr) {
  SKIFF_CHECK(!descr.empty(), "the header has an empty dtype");
  const char order = descr[0];
  SKIFF_CHECK(order != '>', "dtype '", descr, "' is big-endian, which skiff does not read");
  const std::string type = (order == '<' || order == '=' || order == '|') ? descr.substr(1) : descr;
  if (type == "f4") return DType::kF32;
  if (type == "f8") return DType::kF64;
  if (type == "i4") return DType::kI32;
  if (type == "i8") return DType::kI64;
  if (type == "b1") return DType::kBool;
  if (type == "i1") return DType::kI8;
  if (type == "u1") return DType::kU8;
  if (type == "i2") return DType::kI16;
  if (type == "c8") return DType::kC64;
  if (type == "c16") return DType::kC128;
  fail("dtype '", descr,
       "' is not supported (skiff reads float32, float64, int32, int64, int16, int8, uint8, "
       "bool, complex64, complex128)");
}

// One value of the header dict: a string, a bool or a tuple of ints.
struct HeaderValue {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string text;
  bool flag = false;
  std::vector<int64_t> ints;
};

// Parses the Python dict literal of a .npy header, e.g.
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(const std::string& text) : s_(text) {}

  std::map<std::string, HeaderValue> parse_dict() {
    std::map<std::string, HeaderValue> out;
    expect('{');
    while (!peek('}')) {
      std::string key = parse_string();
      expect(':');
      out[key] = parse_value();
      if (!peek('}')) expect(',');
    }
    expect('}');
    return out;
  }

 private:
  void skip_space() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < s_.size() && s_[pos_] == c;
  }
  void expect(char c) {
    SKIFF_CHECK(peek(c), "malformed header: expected '", c, "' at offset ", pos_, " of ", s_);
    ++pos_;
  }
  std::string parse_string() {
    skip_space();
    SKIFF_CHECK(pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"'),
                "malformed header: expected a quoted string at offset ", pos_, " of ", s_);
    const char quote = s_[pos_++];
    size_t end = s_.find(quote, pos_);
    SKIFF_CHECK(end != std::string::npos, "malformed header: unterminated string in ", s_);
    std::string out = s_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return out;
  }
  int64_t parse_int() {
    skip_space();
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    SKIFF_CHECK(pos_ > start && pos_ - start <= 18, "malformed header: bad dim at offset ", start,
                " of ", s_);
    int64_t value = std::stoll(s_.substr(start, pos_ - start));
    if (pos_ < s_.size() && s_[pos_] == 'L') ++pos_;  // written by Python 2
    return value;
  }
  HeaderValue parse_value() {
    HeaderValue v;
    skip_space();
    if (peek('\'') || peek('"')) {
      v.text = parse_string();
    } else if (peek('(')) {
      v.kind = HeaderValue::kTuple;
      expect('(');
      while (!peek(')')) {
        v.ints.push_back(parse_int());
        if (!peek(')')) expect(',');
      }
      expect(')');
    } else if (s_.compare(pos_, 4, "True") == 0 || s_.compare(pos_, 5, "False") == 0) {
      v.kind = HeaderValue::kBool;
      v.flag = s_[pos_] == 'T';
      pos_ += v.flag ? 4 : 5;
    } else {
      fail("unsupported header value at offset ", pos_, " of ", s_,
           " (structured dtypes are not supported)");
    }
    return v;
  }

  const std::string& s_;
  size_t pos_ = 0;
};

const HeaderValue& header_field(const std::map<std::string, HeaderValue>& dict, const char* key,
                                HeaderValue::Kind kind) {
  auto it = dict.find(key);
  SKIFF_CHECK(it != dict.end(), "the header has no '", key, "' entry");
  SKIFF_CHECK(it->second.kind == kind, "the header's '", key, "' entry has the wrong type");
  return it->second;
}

uint64_t read_le(const std::string& bytes, size_t pos, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[pos + i])) << (8 * i);
  return v;
}

}  // namespace

std::string npy_to_bytes(const Tensor& tensor) {
  SKIFF_CHECK(tensor.initialized(), "cannot write a tensor without a value as .npy");
  std::string shape = "(";
  for (int i = 0; i < tensor.rank(); ++i) {
    shape += std::to_string(tensor.shape()[i]);
    shape += (tensor.rank() == 1 || i + 1 < tensor.rank()) ? "," : "";
    if (i + 1 < tensor.rank()) shape += " ";
  }
  shape += ")";
  std::string dict = str_cat("{'descr': '", npy_descr(tensor.dtype()),
                             "', 'fortran_order': False, 'shape': ", shape, ", }");
  // Pad with spaces and a newline so the data starts at a multiple of 64 bytes.
  size_t prefix = kNpyMagicSize + 2 + 2;
  int major = 1;
  if (prefix + dict.size() + 1 > 65535) {
    major = 2;
    prefix += 2;
  }
  size_t total = prefix + dict.size() + 1;
  total = (total + kHeaderAlign - 1) / kHeaderAlign * kHeaderAlign;
  dict.append(total - prefix - dict.size() - 1, ' ');
  dict += '\n';
  std::string out(kNpyMagic, kNpyMagicSize);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    out.push_back(static_cast<char>((dict.size() >> (8 * i)) & 0xff));
  out += dict;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  return out;
}

Tensor npy_from_bytes(const std::string& bytes) {
  SKIFF_CHECK(bytes.size() >= kNpyMagicSize + 2 && bytes.compare(0, kNpyMagicSize, kNpyMagic) == 0,
              "not a .npy file (it does not start with \\x93NUMPY)");
  const int major = static_cast<unsigned char>(bytes[kNpyMagicSize]);
  SKIFF_CHECK(major >= 1 && major <= 3, ".npy format version ", major,
              " is not supported (skiff reads versions 1 to 3)");
  const int len_bytes = major == 1 ? 2 : 4;
  const size_t prefix = kNpyMagicSize + 2 + len_bytes;
  SKIFF_CHECK(bytes.size() >= prefix, "the file is truncated inside its header");
  const uint64_t header_len = read_le(bytes, kNpyMagicSize + 2, len_bytes);
  SKIFF_CHECK(header_len <= bytes.size() - prefix, "the file is truncated inside its header");
  const std::string header = bytes.substr(prefix, header_len);
  const auto dict = HeaderParser(header).parse_dict();

  const DType dtype = dtype_from_descr(header_field(dict, "descr", HeaderValue::kString).text);
  SKIFF_CHECK(!header_field(dict, "fortran_order", HeaderValue::kBool).flag,
              "the array is in Fortran order; save it in C order (numpy.ascontiguousarray)");
  const std::vector<int64_t>& dims = header_field(dict, "shape", HeaderValue::kTuple).ints;
  SKIFF_CHECK(dims.size() <= static_cast<size_t>(Shape::kMaxRank), "rank ", dims.size(),
              " is above the supported ", Shape::kMaxRank);
  uint64_t numel = 1;
  for (int64_t d : dims) {
    SKIFF_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(d), &numel),
                "the shape is impossibly large");
  }
  uint64_t nbytes = 0;
  SKIFF_CHECK(!__builtin_mul_overflow(numel, dtype_size(dtype), &nbytes),
              "the shape is impossibly large");
  const uint64_t present = bytes.size() - prefix - header_len;
  SKIFF_CHECK(present >= nbytes, "the file is truncated: a ", dtype_name(dtype), Shape(dims),
              " array needs ", nbytes, " data bytes, the file holds ", present);
  SKIFF_CHECK(present == nbytes, "the file has ", present - nbytes,
              " unexpected bytes after the array data");
  const char* data = bytes.data() + prefix + header_len;
  Tensor t = Tensor::empty(Shape(dims), dtype);
  if (dtype == DType::kBool) {
    bool* out = t.data<bool>();
    for (uint64_t i = 0; i < nbytes; ++i) out[i] = data[i] != 0;
  } else if (nbytes > 0) {
    std::memcpy(t.raw_data(), data, nbytes);
  }
  return t;
}

Tensor read_npy(const std::string& path) {
  std::string bytes = read_file(path);
  try {
    return npy_from_bytes(bytes);
  } catch (const Error& e) {
    fail("cannot read '", path, "': ", e.what());
  }
}

void write_npy(const std::string& path, const Tensor& tensor) {
  std::string bytes;
  try {
    bytes = npy_to_bytes(tensor);
  } catch (const Error& e) {
    fail("cannot write '", path, "': ", e.what());
  }
  write_file_atomically(path, bytes);
}

}  // namespace skiff
