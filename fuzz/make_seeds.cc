// Writes the seed corpus of fuzz_load_program into a folder: each seed program as a
// whole file (mode 0) and as a bare payload (mode 1); see fuzz_programs.h. Each
// seed is verified first, so that the fuzzer starts from programs that pass.
#include <cstdio>

#include "fuzz/fuzz_programs.h"
#include "skiff/ir/file_io.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  try {
    for (const auto& [name, program] : skiff::fuzzing::seed_programs()) {
      skiff::verify_program(program, skiff::fuzzing::find_schema);
      skiff::write_file_atomically(dir + "/" + name + ".file",
                                   std::string(1, '\0') + skiff::program_to_bytes(program));
      skiff::write_file_atomically(dir + "/" + name + ".payload",
                                   skiff::fuzzing::payload_input(program));
    }
  } catch (const skiff::Error& e) {
    std::fprintf(stderr, "fuzz_make_seeds: %s\n", e.what());
    return 1;
  }
  return 0;
}
