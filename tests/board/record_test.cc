// TFRecord framing: CRC-32C against published check values, and the scanner's handling
// of whole, cut and corrupted records.
#include "skiff/board/record.h"

#include <gtest/gtest.h>

#include <string>

namespace skiff::board {
namespace {

TEST(Crc32c, MatchesTheCheckValues) {
  EXPECT_EQ(crc32c("123456789", 9), 0xe3069283u);  // the CRC catalogue's check value
  EXPECT_EQ(crc32c("", 0), 0u);
  const std::string zeros(32, '\0');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8a9136aau);  // RFC 3720, B.4
  const std::string ones(32, '\xff');
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62a8ab43u);
  // Continuing a CRC over a split buffer gives the CRC of the whole.
  EXPECT_EQ(crc32c("6789", 4, crc32c("12345", 5)), 0xe3069283u);
}

std::string framed(std::initializer_list<std::string> records) {
  std::string out;
  for (const std::string& r : records) append_record(r, &out);
  return out;
}

TEST(RecordScanner, ReadsEveryRecordInOrder) {
  const std::string data = framed({"first", "", std::string(1000, 'x')});
  RecordScanner scan(data.data(), data.size());
  std::vector<std::string> got;
  while (auto r = scan.next()) {
    EXPECT_FALSE(r->corrupt);
    got.emplace_back(r->data, r->size);
  }
  EXPECT_EQ(scan.status(), RecordScanner::Status::kEnd);
  EXPECT_EQ(scan.offset(), data.size());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], "first");
  EXPECT_EQ(got[1], "");
  EXPECT_EQ(got[2], std::string(1000, 'x'));
}

TEST(RecordScanner, StopsBeforeACutRecordAndResumesFromItsOffset) {
  const std::string data = framed({"one", "two"});
  for (size_t cut = 20; cut < data.size(); ++cut) {  // "one" whole, "two" cut
    RecordScanner scan(data.data(), cut);
    ASSERT_TRUE(scan.next());
    EXPECT_FALSE(scan.next());
    EXPECT_EQ(scan.status(), RecordScanner::Status::kIncomplete) << cut;
    EXPECT_EQ(scan.offset(), 19u);  // 16 bytes of framing + "one"
  }
  RecordScanner rest(data.data() + 19, data.size() - 19);
  auto r = rest.next();
  ASSERT_TRUE(r);
  EXPECT_EQ(std::string(r->data, r->size), "two");
}

TEST(RecordScanner, MarksARecordWhoseDataFailsItsCrcAndGoesOn) {
  std::string data = framed({"one", "two", "three"});
  data[19 + 12] ^= 1;  // a bit of "two"
  RecordScanner scan(data.data(), data.size());
  std::vector<std::pair<std::string, bool>> got;
  while (auto r = scan.next()) got.emplace_back(std::string(r->data, r->size), r->corrupt);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_FALSE(got[0].second);
  EXPECT_TRUE(got[1].second);
  EXPECT_EQ(got[2], std::make_pair(std::string("three"), false));
}

TEST(RecordScanner, EndsAtALengthThatFailsItsCrc) {
  std::string data = framed({"one", "two"});
  data[19] ^= 4;  // the second record's length
  RecordScanner scan(data.data(), data.size());
  ASSERT_TRUE(scan.next());
  EXPECT_FALSE(scan.next());
  EXPECT_EQ(scan.status(), RecordScanner::Status::kBadLength);
  EXPECT_EQ(scan.offset(), 19u);
  EXPECT_FALSE(scan.next());
}

}  // namespace
}  // namespace skiff::board
