// The .skmodel format: exact round trips, deterministic bytes, atomic writes, and a
// clear skiff::Error for each kind of bad file.
#include "skiff/ir/serialize.h"
#include "tests/testing/op_test.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "tests/ir/sample_programs.h"
#include "tests/ir/wire_format.h"

namespace skiff {
namespace {

using testing::error_of;

using testing::every_feature_program;
using testing::one_op_program;
using testing::program_file;
using testing::Wire;

// The message of the skiff::Error that `fn` throws ("" if it throws none).

std::string temp_dir() {
  auto dir = std::filesystem::temp_directory_path() /
             ("skiff_serialize_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(Serialize, RoundTripKeepsEverything) {
  Program p = every_feature_program();
  Program back = program_from_bytes(program_to_bytes(p));
  EXPECT_EQ(back, p);
  EXPECT_EQ(back.block(0).ops[0].attr<std::string>("s"), "text with \"quotes\" and \xc3\xa9");
  EXPECT_EQ(back.block(1).find_local_var("h")->shape.rank(), 8);
}

TEST(Serialize, RoundTripKeepsFeedAndFetchNames) {
  Program p = every_feature_program();
  p.feed_names = {"x", "label"};
  p.fetch_names = {"w"};
  Program back = program_from_bytes(program_to_bytes(p));
  EXPECT_EQ(back.feed_names, p.feed_names);
  EXPECT_EQ(back.fetch_names, p.fetch_names);
  EXPECT_EQ(back, p);
  Program none = program_from_bytes(program_to_bytes(every_feature_program()));
  EXPECT_TRUE(none.feed_names.empty() && none.fetch_names.empty());
}

TEST(Serialize, BytesAreDeterministic) {
  std::string bytes = program_to_bytes(every_feature_program());
  EXPECT_EQ(bytes, program_to_bytes(every_feature_program()));
  EXPECT_EQ(program_to_bytes(program_from_bytes(bytes)), bytes);
  EXPECT_EQ(bytes.compare(0, 8, "SKIFFMDL"), 0);
}

TEST(Serialize, BuiltProgramsRoundTrip) {
  for (const Program& p :
       {testing::counting_loop_program(), testing::loop_with_backward_program()}) {
    EXPECT_EQ(program_from_bytes(program_to_bytes(p)), p);
  }
}

TEST(Serialize, SaveAndLoadFile) {
  const std::string path = temp_dir() + "/model.skmodel";
  Program p = every_feature_program();
  save_program(p, path);
  EXPECT_EQ(load_program(path), p);
  // Overwriting replaces the file and leaves no temporary behind.
  Program small;
  save_program(small, path);
  EXPECT_EQ(load_program(path), small);
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(temp_dir())) {
    (void)entry;
    ++files;
  }
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(temp_dir());
}

TEST(Serialize, FileErrorsNameTheFile) {
  EXPECT_NE(error_of([] {
              load_program("/nonexistent/dir/m.skmodel");
            }).find("cannot open '/nonexistent/dir/m.skmodel'"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              save_program(Program(), "/nonexistent/dir/m.skmodel");
            }).find("/nonexistent/dir/m.skmodel"),
            std::string::npos);
  const std::string path = temp_dir() + "/not_a_model.skmodel";
  std::ofstream(path) << "hello";
  std::string e = error_of([&] { load_program(path); });
  EXPECT_NE(e.find("cannot load program '" + path + "'"), std::string::npos) << e;
  EXPECT_NE(e.find("not a skiff program file"), std::string::npos) << e;
  std::filesystem::remove_all(temp_dir());
}

TEST(Serialize, RejectsWrongMagic) {
  std::string bytes = program_to_bytes(Program());
  bytes[0] = 'X';
  EXPECT_NE(error_of([&] { program_from_bytes(bytes); }).find("not a skiff program file"),
            std::string::npos);
  EXPECT_NE(error_of([] { program_from_bytes(""); }).find("not a skiff program file"),
            std::string::npos);
}

TEST(Serialize, RejectsAnotherVersion) {
  Program p;
  p.version = 7;
  EXPECT_EQ(error_of([&] { program_from_bytes(program_to_bytes(p)); }),
            "the program file was written by format version 7, this skiff reads version 1");
}

TEST(Serialize, RejectsBodyVersionDisagreeingWithHeader) {
  Wire block;
  block.varint(1, 0).varint(2, -1);
  Wire program;
  program.varint(1, 3).message(2, block);
  EXPECT_NE(error_of([&] {
              program_from_bytes(program_file(program.str()));
            }).find("header says format version 1 but its program data says 3"),
            std::string::npos);
}

TEST(Serialize, RejectsTruncationAndTrailingBytes) {
  std::string bytes = program_to_bytes(every_feature_program());
  EXPECT_NE(error_of([&] { program_from_bytes(bytes.substr(0, 12)); }).find("truncated"),
            std::string::npos);
  EXPECT_NE(
      error_of([&] { program_from_bytes(bytes.substr(0, bytes.size() - 1)); }).find("truncated"),
      std::string::npos);
  EXPECT_NE(error_of([&] { program_from_bytes(bytes + "x"); }).find("1 unexpected bytes"),
            std::string::npos);
}

TEST(Serialize, RejectsUndecodableData) {
  EXPECT_NE(error_of([] {
              program_from_bytes(program_file("\xff\xff\xff\xff"));
            }).find("program data is corrupt"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              program_from_bytes(program_file(Wire().varint(1, 1).str()));
            }).find("no blocks"),
            std::string::npos);
}

TEST(Serialize, RejectsOutOfRangeEnums) {
  Program p;
  p.global_block().add_var(VarDesc("x", static_cast<DType>(11), Shape{2}));
  EXPECT_NE(error_of([&] {
              program_from_bytes(program_to_bytes(p));
            }).find("block 0, variable 'x': unknown dtype number 11"),
            std::string::npos);
  Program q;
  q.global_block().add_var(VarDesc("s", DType::kF32, Shape{}, static_cast<VarKind>(-3)));
  EXPECT_NE(error_of([&] {
              program_from_bytes(program_to_bytes(q));
            }).find("variable 's': unknown kind number -3"),
            std::string::npos);
  Wire op;
  op.bytes(1, "scale").message(4, Wire().bytes(1, "factor").varint(2, 9));
  EXPECT_NE(error_of([&] {
              program_from_bytes(one_op_program(op));
            }).find("block 0, op 0 (scale): attribute 'factor' has unknown type number 9"),
            std::string::npos);
}

TEST(Serialize, RejectsAttrTypeDisagreeingWithValue) {
  Wire op;
  op.bytes(1, "scale").message(4, Wire().bytes(1, "factor").varint(2, 0).bytes(5, "oops"));
  EXPECT_NE(error_of([&] {
              program_from_bytes(one_op_program(op));
            }).find("attribute 'factor' has type int but holds a string value"),
            std::string::npos);
  Wire op2;
  op2.bytes(1, "scale").message(4, Wire().bytes(1, "factor").varint(2, 2).float64(4, 1.5));
  EXPECT_NE(error_of([&] {
              program_from_bytes(one_op_program(op2));
            }).find("has type string but holds a float value"),
            std::string::npos);
}

TEST(Serialize, RejectsDuplicates) {
  Wire attr = Wire().bytes(1, "a").varint(2, 0).varint(3, 1);
  Wire op;
  op.bytes(1, "scale").message(4, attr).message(4, attr);
  EXPECT_NE(
      error_of([&] { program_from_bytes(one_op_program(op)); }).find("attribute 'a' appears twice"),
      std::string::npos);
  Wire slot = Wire().bytes(1, "X").bytes(2, "x");
  Wire op2;
  op2.bytes(1, "scale").message(2, slot).message(2, slot);
  EXPECT_NE(error_of([&] {
              program_from_bytes(one_op_program(op2));
            }).find("input slot 'X' appears twice"),
            std::string::npos);
  Wire var = Wire().bytes(1, "v").varint(3, 0);
  Wire block;
  block.varint(1, 0).varint(2, -1).message(3, var).message(3, var);
  EXPECT_NE(error_of([&] {
              program_from_bytes(program_file(Wire().varint(1, 1).message(2, block).str()));
            }).find("variable 'v' is declared twice"),
            std::string::npos);
}

TEST(Serialize, RejectsBadBlockStructure) {
  Program p;
  p.add_block(0);
  p.blocks()[1].idx = 5;
  EXPECT_NE(
      error_of([&] { program_from_bytes(program_to_bytes(p)); }).find("block 1 says it is block 5"),
      std::string::npos);
  Program q;
  q.add_block(0);
  q.blocks()[1].parent_idx = 4;
  EXPECT_NE(error_of([&] {
              program_from_bytes(program_to_bytes(q));
            }).find("block 1: parent block 4 does not exist"),
            std::string::npos);
  Program r;
  r.global_block().append_op("while").set_attr("sub_block", BlockRef{3});
  EXPECT_NE(error_of([&] { program_from_bytes(program_to_bytes(r)); })
                .find("block 0, op 0 (while): attribute 'sub_block' refers to block 3, but the "
                      "program has 1 blocks"),
            std::string::npos);
}

TEST(Serialize, RejectsBadVariables) {
  Program p;
  p.global_block().add_var(VarDesc("x", DType::kF32, Shape{2, -5}));
  EXPECT_NE(error_of([&] { program_from_bytes(program_to_bytes(p)); }).find("dim -5"),
            std::string::npos);
  Wire var = Wire().bytes(1, "deep");
  for (int i = 0; i < 9; ++i) var.varint(4, 1);
  Wire block;
  block.varint(1, 0).varint(2, -1).message(3, var);
  EXPECT_NE(error_of([&] {
              program_from_bytes(program_file(Wire().varint(1, 1).message(2, block).str()));
            }).find("rank 9 is above the supported 8"),
            std::string::npos);
}

}  // namespace
}  // namespace skiff
