// A fixed, deterministic corpus of damaged program files (every truncation, every
// bit flip, random bytes from a fixed seed, forged headers and structures) goes
// through load + verify + print: each must end in a skiff::Error or a program, never
// in a crash or another exception. The libFuzzer target fuzz/fuzz_load_program.cc
// explores the same path without a fixed corpus.
#include <gtest/gtest.h>

#include <random>

#include "skiff/ir/printer.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"
#include "skiff/ops/registry.h"
#include "tests/ir/sample_programs.h"
#include "tests/ir/wire_format.h"

namespace skiff {
namespace {

enum class Outcome { kAccepted, kRejected };

// Loads, verifies and prints `bytes`. Any exception other than skiff::Error fails.
Outcome load_verify_print(const std::string& bytes, const std::string& label) {
  try {
    Program p = program_from_bytes(bytes);
    program_to_text(p);
    verify_program(p, find_op_schema);
    return Outcome::kAccepted;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()), "") << label;
    return Outcome::kRejected;
  } catch (const std::exception& e) {
    ADD_FAILURE() << label << ": threw a non-skiff exception: " << e.what();
  } catch (...) {
    ADD_FAILURE() << label << ": threw a non-standard exception";
  }
  return Outcome::kRejected;
}

void expect_rejected(const std::string& bytes, const std::string& label) {
  EXPECT_EQ(load_verify_print(bytes, label), Outcome::kRejected) << label;
}

std::vector<Program> valid_programs() {
  return {testing::counting_loop_program(), testing::loop_with_backward_program()};
}

TEST(CorruptFiles, ValidProgramsLoadAndVerify) {
  for (const Program& p : valid_programs())
    EXPECT_EQ(load_verify_print(program_to_bytes(p), "valid"), Outcome::kAccepted);
}

TEST(CorruptFiles, EveryTruncationIsRejected) {
  const std::string bytes = program_to_bytes(testing::counting_loop_program());
  for (size_t n = 0; n < bytes.size(); ++n)
    expect_rejected(bytes.substr(0, n), "truncated to " + std::to_string(n));
}

TEST(CorruptFiles, EveryBitFlipOfASmallFile) {
  const std::string bytes = program_to_bytes(testing::counting_loop_program());
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = bytes;
      damaged[i] = static_cast<char>(damaged[i] ^ (1 << bit));
      load_verify_print(damaged, str_cat("bit ", bit, " of byte ", i));
    }
  }
}

TEST(CorruptFiles, RandomDamageWithAFixedSeed) {
  std::mt19937 rng(20240611);
  for (const Program& p : valid_programs()) {
    const std::string bytes = program_to_bytes(p);
    std::uniform_int_distribution<size_t> position(0, bytes.size() - 1);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int round = 0; round < 3000; ++round) {
      std::string damaged = bytes;
      const int edits = 1 + round % 8;
      for (int e = 0; e < edits; ++e) {
        if (damaged.empty()) break;
        const size_t at = position(rng) % damaged.size();
        switch ((round + e) % 3) {
          case 0:
            damaged[at] = static_cast<char>(byte(rng));
            break;  // overwrite
          case 1:
            damaged.insert(damaged.begin() + at, static_cast<char>(byte(rng)));
            break;
          default:
            damaged.erase(at, 1 + at % 4);
            break;
        }
      }
      load_verify_print(damaged, str_cat("random round ", round));
      // The same damage to the payload only, behind a header that matches its length.
      std::string payload = damaged.size() > 20 ? damaged.substr(20) : "";
      load_verify_print(testing::program_file(payload), str_cat("payload round ", round));
    }
  }
  // Pure noise behind a valid header.
  for (int round = 0; round < 2000; ++round) {
    std::string noise(static_cast<size_t>(round % 200), '\0');
    for (char& c : noise) c = static_cast<char>(rng() & 0xff);
    load_verify_print(testing::program_file(noise), str_cat("noise round ", round));
  }
}

TEST(CorruptFiles, WrongVersions) {
  std::string payload = program_to_bytes(testing::counting_loop_program()).substr(20);
  for (uint32_t version : {0u, 2u, 99u, 0xffffffffu})
    expect_rejected(testing::program_file(payload, version), str_cat("version ", version));
}

TEST(CorruptFiles, ForgedStructures) {
  Program base = testing::loop_with_backward_program();
  ASSERT_GE(base.num_blocks(), 3);
  auto forged = [&](const std::function<void(Program&)>& damage) {
    Program p = base;
    damage(p);
    return program_to_bytes(p);
  };
  int while_op = -1;
  for (size_t i = 0; i < base.global_block().ops.size(); ++i)
    if (base.global_block().ops[i].type == "while") while_op = static_cast<int>(i);
  ASSERT_GE(while_op, 0);

  expect_rejected(forged([&](Program& p) {
                    p.global_block().ops[while_op].set_attr("sub_block", BlockRef{77});
                  }),
                  "dangling block index");
  expect_rejected(forged([&](Program& p) { p.blocks()[1].parent_idx = 2; }), "cyclic parents");
  expect_rejected(forged([&](Program& p) { p.blocks()[0].parent_idx = 0; }), "block 0 own parent");
  expect_rejected(forged([&](Program& p) { p.blocks()[2].parent_idx = -1; }), "second root");
  expect_rejected(forged([&](Program& p) { p.blocks()[1].idx = 0; }), "renumbered block");
  expect_rejected(forged([&](Program& p) { p.global_block().ops[0].type = "no_such_op"; }),
                  "unknown op");
  expect_rejected(
      forged([&](Program& p) { p.global_block().ops[while_op].set_attr("sub_block", int64_t{1}); }),
      "block attr given as int");
  expect_rejected(forged([&](Program& p) {
                    p.global_block().ops[while_op].set_attr("keep_step_scopes", std::string("yes"));
                  }),
                  "bool attr given as string");
  expect_rejected(forged([&](Program& p) {
                    p.global_block().vars.begin()->second.dtype = static_cast<DType>(200);
                  }),
                  "dtype out of range");
  expect_rejected(forged([&](Program& p) { p.blocks().clear(); }), "no blocks");
  expect_rejected(
      forged([&](Program& p) { p.block(1).ops[0].set_input("X", {"declared_nowhere"}); }),
      "undeclared input");

  testing::Wire attr;
  attr.bytes(1, "sub_block")
      .varint(2, static_cast<int>(AttrType::kBlock))
      .varint(10, 0)
      .bytes(5, "stray");
  expect_rejected(testing::one_op_program(testing::Wire().bytes(1, "while").message(4, attr)),
                  "attr type disagreeing with its value");
}

}  // namespace
}  // namespace skiff
