// Writes the seed corpus of fuzz_http_request into a folder: requests as clients send them
// (keep-alive, pipelined, chunked, Expect: 100-continue, HTTP/1.0, HEAD, an infer request
// with a binary tensor) and some that each check refuses.
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: fuzz_make_http_seeds DIR\n");
    return 2;
  }
  const std::string infer_json =
      R"({"inputs":[{"name":"x","shape":[1,2],"datatype":"FP32","parameters":{"binary_data_size":8}}]})";
  const std::string infer_body = infer_json + std::string("\x00\x00\xc0\x3f\x00\x00\x80\xbe", 8);
  const std::vector<std::pair<const char*, std::string>> seeds = {
      {"health", "GET /v2/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"},
      {"pipelined",
       "GET /v2 HTTP/1.1\r\n\r\nPOST /v2/repository/index HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}"},
      {"chunked",
       "POST /v2/models/m/infer HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
       "4\r\n{\"a\"\r\n3;ext=1\r\n:1}\r\n0\r\nTrailer: x\r\n\r\n"},
      {"continue", "POST /e HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody"},
      {"http10", "GET /v2/models/m%20n/ready?x=1 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"},
      {"head", "HEAD /metrics HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\nConnection: close\r\n\r\n"},
      {"infer",
       "POST /v2/models/w6/versions/1/infer HTTP/1.1\r\nContent-Type: application/octet-stream\r\n"
       "Inference-Header-Content-Length: " +
           std::to_string(infer_json.size()) +
           "\r\nContent-Length: " + std::to_string(infer_body.size()) + "\r\n\r\n" + infer_body},
      {"too_large", "POST /big HTTP/1.1\r\nContent-Length: 5000\r\n\r\n"},
      {"two_lengths", "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"},
      {"bad_chunk", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"},
      {"bad_escape", "GET /a%zz HTTP/1.1\r\n\r\n"},
      {"not_http", "HELLO THERE\r\n\r\n"},
  };
  for (const auto& [name, bytes] : seeds)
    std::ofstream(std::string(argv[1]) + "/" + name, std::ios::binary) << bytes;
  return 0;
}
