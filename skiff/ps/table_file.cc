#include "skiff/ps/table_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "skiff/core/error.h"

namespace skiff::ps {
namespace {

constexpr size_t kFileBuffer = 1 << 20;

// CRC-32 (the zlib polynomial) of `n` more bytes, continuing from `crc` (0 to start).
uint32_t crc32_update(uint32_t crc, const void* data, size_t n) {
  static const auto table = [] {
    std::vector<uint32_t> t(256);
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[i] = c;
    }
    return t;
  }();
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (size_t i = 0; i < n; ++i) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return ~crc;
}

std::string errno_text() { return std::strerror(errno); }

std::string folder_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

TableFileWriter::TableFileWriter(std::string path) : path_(std::move(path)), temp_(path_ + ".tmp") {
  SKIFF_CHECK(!path_.empty(), "cannot write a table file with an empty path");
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    fail("cannot create '", temp_, "' (to write table file '", path_, "'): ", errno_text());
  buffer_.reserve(kFileBuffer);
}

TableFileWriter::~TableFileWriter() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(temp_.c_str());
}

void TableFileWriter::flush() {
  size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail("cannot write '", temp_, "' (table file '", path_, "'): ", errno_text());
    done += static_cast<size_t>(n);
  }
  buffer_.clear();
}

void TableFileWriter::put_bytes(const void* data, size_t n) {
  crc_ = crc32_update(crc_, data, n);
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    size_t take = std::min(n, kFileBuffer - buffer_.size());
    buffer_.append(p, take);
    p += take;
    n -= take;
    if (buffer_.size() == kFileBuffer) flush();
  }
}

void TableFileWriter::put_u32(uint32_t v) {
  unsigned char b[4];
  for (int i = 0; i < 4; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  put_bytes(b, sizeof b);
}

void TableFileWriter::put_u64(uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
  put_bytes(b, sizeof b);
}

void TableFileWriter::put_f64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  put_u64(bits);
}

void TableFileWriter::put_string(const std::string& s) {
  put_u32(static_cast<uint32_t>(s.size()));
  put_bytes(s.data(), s.size());
}

void TableFileWriter::put_floats(const float* v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  put_bytes(v, n * sizeof(float));
#else
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits;
    std::memcpy(&bits, v + i, sizeof bits);
    put_u32(bits);
  }
#endif
}

void TableFileWriter::put_header(const char (&magic)[8], uint32_t version) {
  put_bytes(magic, sizeof magic);
  put_u32(version);
}

void TableFileWriter::commit() {
  SKIFF_CHECK(!committed_, "table file '", path_, "' was already committed");
  uint32_t crc = crc_;
  put_u32(crc);
  flush();
  if (::fsync(fd_) != 0) fail("cannot flush '", temp_, "' to disk: ", errno_text());
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot close '", temp_, "': ", errno_text());
  if (::rename(temp_.c_str(), path_.c_str()) != 0) {
    fail("cannot rename '", temp_, "' to table file '", path_, "': ", errno_text());
  }
  committed_ = true;
  // Make the rename durable; a folder that cannot be opened leaves it to the system.
  int folder = ::open(folder_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (folder >= 0) {
    ::fsync(folder);
    ::close(folder);
  }
}

TableFileReader::TableFileReader(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot open table file '", path_, "': ", errno_text());
  buffer_.resize(kFileBuffer);
}

TableFileReader::~TableFileReader() {
  if (fd_ >= 0) ::close(fd_);
}

void TableFileReader::corrupt(const std::string& what) const {
  fail("table file '", path_, "': ", what);
}

size_t TableFileReader::read_raw(void* data, size_t n) {
  char* out = static_cast<char*>(data);
  size_t done = 0;
  while (done < n) {
    if (begin_ == end_) {
      ssize_t got = ::read(fd_, buffer_.data(), buffer_.size());
      if (got < 0 && errno == EINTR) continue;
      if (got < 0) fail("cannot read table file '", path_, "': ", errno_text());
      if (got == 0) break;
      begin_ = 0;
      end_ = static_cast<size_t>(got);
    }
    size_t take = std::min(n - done, end_ - begin_);
    std::memcpy(out + done, buffer_.data() + begin_, take);
    begin_ += take;
    done += take;
  }
  return done;
}

void TableFileReader::get_bytes(void* data, size_t n) {
  if (read_raw(data, n) != n) corrupt("truncated (the file ends early)");
  crc_ = crc32_update(crc_, data, n);
}

uint32_t TableFileReader::get_u32() {
  unsigned char b[4];
  get_bytes(b, sizeof b);
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(b[i]) << (8 * i);
  return v;
}

uint64_t TableFileReader::get_u64() {
  unsigned char b[8];
  get_bytes(b, sizeof b);
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<uint64_t>(b[i]) << (8 * i);
  return v;
}

double TableFileReader::get_f64() {
  uint64_t bits = get_u64();
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

std::string TableFileReader::get_string(size_t max_length) {
  uint32_t length = get_u32();
  if (length > max_length) corrupt(str_cat("a string of ", length, " bytes is too long"));
  std::string s(length, '\0');
  get_bytes(s.data(), length);
  return s;
}

void TableFileReader::get_floats(float* v, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  get_bytes(v, n * sizeof(float));
#else
  for (size_t i = 0; i < n; ++i) {
    uint32_t bits = get_u32();
    std::memcpy(v + i, &bits, sizeof bits);
  }
#endif
}

void TableFileReader::expect_header(const char (&magic)[8], uint32_t version, const char* kind) {
  char read[sizeof magic];
  get_bytes(read, sizeof read);
  if (std::memcmp(read, magic, sizeof magic) != 0) corrupt(str_cat("not a ", kind, " file"));
  const uint32_t found = get_u32();
  if (found != version) {
    corrupt(str_cat("format version ", found, " is not supported (expected ", version, ")"));
  }
}

void TableFileReader::finish() {
  const uint32_t expected = crc_;
  unsigned char b[4];
  if (read_raw(b, sizeof b) != sizeof b) corrupt("truncated (the checksum is missing)");
  uint32_t stored = 0;
  for (int i = 0; i < 4; ++i) stored |= static_cast<uint32_t>(b[i]) << (8 * i);
  if (stored != expected) corrupt("checksum mismatch (the file is damaged)");
  char extra;
  if (read_raw(&extra, 1) != 0) corrupt("unexpected bytes after the checksum");
}

}  // namespace skiff::ps
