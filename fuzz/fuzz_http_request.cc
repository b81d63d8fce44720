// libFuzzer target: any bytes sent on a connection to skiff serve's HTTP loop
// (serve_connection, serve/http_listener.h) end in answers and a closed connection; never
// a crash, a hang, a sanitizer report, or an escaped exception. Every request the handler
// sees is whole: its body no larger than the limit, its path decoded, its method a token.
// The bytes are written to one end of a socket pair and that end shut for writing, so the
// loop reads them as a client's and sees the client close.
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "skiff/serve/http_listener.h"

namespace {

using skiff::serve::HttpRequest;
using skiff::serve::HttpResponse;
using skiff::serve::ListenerOptions;

constexpr size_t kMaxBody = 1024;

void check_and_answer(const HttpRequest& req, HttpResponse& res) {
  if (req.body.size() > kMaxBody || req.method.empty() ||
      req.method.find_first_of(" \r\n") != std::string::npos)
    std::abort();
  res.content_type = "text/plain";
  res.body = req.path.substr(0, 64);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) std::abort();
  // The answers go back to fds[0], which nothing reads: an input whose answers would not
  // fit the socket's buffer would block, so inputs stay small (run_fuzz.sh: -max_len).
  if (size > 0 && ::send(fds[0], data, size, MSG_NOSIGNAL) != static_cast<ssize_t>(size))
    std::abort();
  ::shutdown(fds[0], SHUT_WR);
  ListenerOptions options;
  options.max_body_bytes = kMaxBody;
  options.max_header_bytes = 2048;
  std::atomic<bool> stopping{false};
  skiff::serve::serve_connection(fds[1], "fuzz", check_and_answer, options, stopping);
  ::close(fds[0]);
  ::close(fds[1]);
  return 0;
}
