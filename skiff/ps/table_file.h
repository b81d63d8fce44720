// The files tables are saved in (SparseTable, DenseTable): little-endian fields, then the
// CRC-32 of everything before it, written atomically. Errors name the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace skiff::ps {

// Writes `path` + ".tmp" through a buffer; commit() appends the CRC, fsyncs and renames
// it over `path`. Destroyed without commit(), it removes the temporary file.
class TableFileWriter {
 public:
  explicit TableFileWriter(std::string path);
  ~TableFileWriter();
  TableFileWriter(const TableFileWriter&) = delete;
  TableFileWriter& operator=(const TableFileWriter&) = delete;

  void put_bytes(const void* data, size_t n);
  void put_u32(uint32_t v);
  void put_u64(uint64_t v);
  void put_i64(int64_t v) { put_u64(static_cast<uint64_t>(v)); }
  void put_f64(double v);
  void put_string(const std::string& s);  // u32 length, then the bytes
  void put_floats(const float* v, size_t n);
  // The file's kind (8 magic bytes) and format version, first in every table file.
  void put_header(const char (&magic)[8], uint32_t version);
  void commit();

 private:
  void flush();

  std::string path_, temp_;
  int fd_ = -1;
  std::string buffer_;
  uint32_t crc_ = 0;
  bool committed_ = false;
};

// Reads a file written by TableFileWriter; a short read fails as "truncated".
class TableFileReader {
 public:
  explicit TableFileReader(std::string path);
  ~TableFileReader();
  TableFileReader(const TableFileReader&) = delete;
  TableFileReader& operator=(const TableFileReader&) = delete;

  const std::string& path() const { return path_; }
  void get_bytes(void* data, size_t n);
  uint32_t get_u32();
  uint64_t get_u64();
  int64_t get_i64() { return static_cast<int64_t>(get_u64()); }
  double get_f64();
  std::string get_string(size_t max_length);
  void get_floats(float* v, size_t n);
  // Reads the header put_header wrote; fails unless it is `magic` (a `kind` file) at
  // `version`.
  void expect_header(const char (&magic)[8], uint32_t version, const char* kind);
  // Checks the trailing CRC and that the file ends right after it.
  void finish();

  // Throws skiff::Error "table file '<path>': <what>".
  [[noreturn]] void corrupt(const std::string& what) const;

 private:
  size_t read_raw(void* data, size_t n);  // up to n bytes, fewer only at the end

  std::string path_;
  int fd_ = -1;
  std::vector<char> buffer_;
  size_t begin_ = 0, end_ = 0;
  uint32_t crc_ = 0;
};

}  // namespace skiff::ps
