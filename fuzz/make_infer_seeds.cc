// Writes the seed corpus of fuzz_infer_request into a folder: request bodies that decode
// (every datatype as JSON, nested data, binary inputs mixed with JSON ones, request and
// output parameters) and some that fail at each check, in the format of
// infer_request_input.h.
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "fuzz/infer_request_input.h"

namespace {

struct Seed {
  const char* name;
  std::optional<uint16_t> json_size;  // nullopt: no header; else the JSON's length
  std::string body;
};

// A body of `json` followed by `binary`, with its header.
Seed with_binary(const char* name, const std::string& json, const std::string& binary) {
  return {name, static_cast<uint16_t>(json.size()), json + binary};
}

std::vector<Seed> seeds() {
  const std::string floats("\x00\x00\xc0\x3f\x00\x00\x80\xbe", 8);  // 1.5f, -0.25f
  const std::string bools("\x01\x00\x01", 3);
  const std::string mixed =
      R"({"inputs":[{"name":"a","datatype":"FP32","shape":[2],"parameters":{"binary_data_size":8}},)"
      R"({"name":"b","datatype":"INT32","shape":[2],"data":[4,5]},)"
      R"({"name":"c","datatype":"BOOL","shape":[3],"parameters":{"binary_data_size":3}}],)"
      R"("outputs":[{"name":"y","parameters":{"binary_data":true}}]})";
  return {
      {"every_datatype", std::nullopt,
       R"({"inputs":[{"name":"b","datatype":"BOOL","shape":[2],"data":[true,false]},)"
       R"({"name":"u8","datatype":"UINT8","shape":[2],"data":[0,255]},)"
       R"({"name":"i8","datatype":"INT8","shape":[2],"data":[-128,127]},)"
       R"({"name":"i16","datatype":"INT16","shape":[1],"data":[-32768]},)"
       R"({"name":"i32","datatype":"INT32","shape":[2,2],"data":[[1,2],[3,4]]},)"
       R"({"name":"i64","datatype":"INT64","shape":[1],"data":[-9223372036854775808]},)"
       R"({"name":"f32","datatype":"FP32","shape":[2],"data":[0.1,-3.4e38]},)"
       R"({"name":"f64","datatype":"FP64","shape":[],"data":[5e-324]},)"
       R"({"name":"h","datatype":"BF16","shape":[1,1],"data":[[0.1]]}]})"},
      {"parameters", std::nullopt,
       R"({"id":"r1","parameters":{"binary_data_output":true,"timeout":100,"priority":2},)"
       R"("inputs":[{"name":"x","datatype":"FP32","shape":[0,3],"data":[]}],)"
       R"("outputs":[{"name":"y","parameters":{"binary_data":false}},{"name":"z"}]})"},
      with_binary("binary_mixed", mixed, floats + bools),
      with_binary("binary_bool_byte", mixed, floats + std::string("\x01\x02\x00", 3)),
      with_binary("binary_short", mixed, floats),
      {"header_past_body", 200, R"({"inputs":[]})"},
      {"broken_json", std::nullopt, R"({"inputs":[{"name":"x","shape":[1],)"},
      {"unknown_datatype", std::nullopt,
       R"({"inputs":[{"name":"x","datatype":"FP16","shape":[1],"data":[1]}]})"},
      {"negative_dim", std::nullopt,
       R"({"inputs":[{"name":"x","datatype":"FP32","shape":[2,-1],"data":[1]}]})"},
      {"out_of_range", std::nullopt,
       R"({"inputs":[{"name":"x","datatype":"UINT8","shape":[2],"data":[1,300]}]})"},
      {"duplicate_input", std::nullopt,
       R"({"inputs":[{"name":"x","datatype":"INT8","shape":[1],"data":[1]},)"
       R"({"name":"x","datatype":"INT8","shape":[1],"data":[2]}]})"},
  };
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_infer_seeds DIR\n");
    return 2;
  }
  for (const Seed& seed : seeds()) {
    const std::string path = std::string(argv[1]) + "/" + seed.name + ".req";
    std::ofstream out(path, std::ios::binary);
    out << skiff::fuzzing::join_infer_input(seed.json_size, seed.body);
    if (!out) {
      std::fprintf(stderr, "fuzz_make_infer_seeds: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  return 0;
}
