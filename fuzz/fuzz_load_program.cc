// libFuzzer target: any bytes through program_from_bytes, the printer and
// verify_program must end in a program or a skiff::Error; never a crash, a
// sanitizer report, or another exception. A loaded program must also survive a
// save/load round trip byte for byte.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fuzz/fuzz_programs.h"
#include "skiff/ir/printer.h"
#include "skiff/ir/serialize.h"
#include "skiff/ir/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  try {
    skiff::Program program = skiff::program_from_bytes(skiff::fuzzing::input_to_file(input));
    const std::string bytes = skiff::program_to_bytes(program);
    if (skiff::program_to_bytes(skiff::program_from_bytes(bytes)) != bytes) std::abort();
    skiff::program_to_text(program);
    skiff::verify_program(program, skiff::fuzzing::find_schema);
  } catch (const skiff::Error&) {
    // A clear rejection is the expected outcome for most inputs.
  }
  return 0;
}
