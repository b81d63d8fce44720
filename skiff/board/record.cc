#include "skiff/board/record.h"

#include <array>
#include <cstring>

namespace skiff::board {
namespace {

constexpr uint32_t kPolynomial = 0x82f63b78u;  // CRC-32C, reflected

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
struct Crc32cTables {
  std::array<std::array<uint32_t, 256>, 8> table;
  Crc32cTables() {
    for (uint32_t b = 0; b < 256; ++b) {
      uint32_t crc = b;
      for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ (kPolynomial & (0u - (crc & 1u)));
      table[0][b] = crc;
    }
    for (uint32_t b = 0; b < 256; ++b) {
      for (int k = 1; k < 8; ++k) {
        table[k][b] = (table[k - 1][b] >> 8) ^ table[0][table[k - 1][b] & 0xff];
      }
    }
  }
};

const Crc32cTables& tables() {
  static const Crc32cTables t;
  return t;
}

uint64_t load_u64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;  // little-endian: every target skiff builds for
}

uint32_t load_u32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

void append_u32(uint32_t v, std::string* out) { out->append(reinterpret_cast<char*>(&v), 4); }

}  // namespace

uint32_t crc32c(const void* data, size_t n, uint32_t crc) {
  const auto& t = tables().table;
  const auto* p = static_cast<const unsigned char*>(data);
  crc = ~crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint32_t low;
    std::memcpy(&low, p, 4);
    low ^= crc;
    crc = t[7][low & 0xff] ^ t[6][(low >> 8) & 0xff] ^ t[5][(low >> 16) & 0xff] ^ t[4][low >> 24] ^
          t[3][p[4]] ^ t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n > 0; --n, ++p) crc = (crc >> 8) ^ t[0][(crc ^ *p) & 0xff];
  return ~crc;
}

void append_record(std::string_view data, std::string* out) {
  uint64_t length = data.size();
  out->append(reinterpret_cast<const char*>(&length), 8);
  append_u32(masked_crc32c(&length, 8), out);
  out->append(data.data(), data.size());
  append_u32(masked_crc32c(data.data(), data.size()), out);
}

std::optional<RecordScanner::Record> RecordScanner::next() {
  if (status_ == Status::kBadLength) return std::nullopt;
  const size_t left = size_ - offset_;
  if (left < 12) {
    status_ = left == 0 ? Status::kEnd : Status::kIncomplete;
    return std::nullopt;
  }
  const char* head = buffer_ + offset_;
  if (load_u32(head + 8) != masked_crc32c(head, 8)) {
    status_ = Status::kBadLength;
    return std::nullopt;
  }
  const uint64_t length = load_u64(head);
  if (left < 16 || length > left - 16) {
    status_ = Status::kIncomplete;
    return std::nullopt;
  }
  const char* data = head + 12;
  offset_ += 16 + length;
  const bool corrupt = load_u32(data + length) != masked_crc32c(data, length);
  return Record{data, static_cast<size_t>(length), corrupt};
}

}  // namespace skiff::board
