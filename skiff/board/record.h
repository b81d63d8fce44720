// TFRecord framing, the container of TensorBoard's event files: each record is
//   uint64 length | uint32 masked_crc32c(length) | data | uint32 masked_crc32c(data)
// (little-endian), where masked_crc32c(x) = rotr(crc32c(x), 15) + 0xa282ead8.
//
//   std::string framed = board::frame_record(event_bytes);
//   board::RecordScanner scan(buffer.data(), buffer.size());
//   while (auto r = scan.next()) if (!r->corrupt) use(r->data, r->size);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace skiff::board {

// CRC-32C (Castagnoli) of `n` bytes, continuing from `crc` (0 to start).
uint32_t crc32c(const void* data, size_t n, uint32_t crc = 0);

// The masked CRC TFRecord stores.
inline uint32_t masked_crc32c(const void* data, size_t n) {
  uint32_t crc = crc32c(data, n);
  return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

// Appends the framed record of `data` to `out`.
void append_record(std::string_view data, std::string* out);

// Splits a buffer of framed records. next() returns each whole record in turn (one
// whose data fails its CRC with `corrupt` set: skip it, the scan goes on), and nothing
// at the end: then status() says why. kIncomplete: a record is cut off by the end of
// the buffer (a reader of a growing file reads again from offset() later);
// kBadLength: a length failed its CRC, so the records after it cannot be found.
class RecordScanner {
 public:
  enum class Status { kEnd, kIncomplete, kBadLength };
  struct Record {
    const char* data;
    size_t size;
    bool corrupt;
  };

  RecordScanner(const char* buffer, size_t size) : buffer_(buffer), size_(size) {}

  std::optional<Record> next();
  // Bytes consumed: the start of the first record not returned or skipped.
  size_t offset() const { return offset_; }
  Status status() const { return status_; }

 private:
  const char* buffer_;
  size_t size_;
  size_t offset_ = 0;
  Status status_ = Status::kEnd;
};

}  // namespace skiff::board
