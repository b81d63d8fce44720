// HTTP/1.1 connections for skiff serve: a listening socket, a thread per connection (up to
// a limit), requests parsed by Boost.Beast's parser and handed to one handler, each answer
// written with one gather write (status line, headers and body in a single sendmsg: a
// client gets the whole answer in one segment and one wake-up). Keep-alive, pipelining,
// chunked bodies and `Expect: 100-continue` are handled here; handlers see whole requests.
//
//   HttpListener listener({.host = "127.0.0.1", .port = 0},
//                         [](const HttpRequest& req, HttpResponse& res) { ... });
//   listener.start();        // binds (throws naming the address) and accepts on a thread
//   listener.port();         // the bound port
//   listener.stop();         // closes the socket and every connection, joins the threads
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace skiff::serve {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // the target's path, percent-decoded
  std::string query;   // after '?', as sent
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string remote;                             // the client's address
  std::chrono::steady_clock::time_point arrived;  // when its first byte was read

  // The value of header `name` (any case); empty when absent.
  std::string_view header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;  // empty: no Content-Type
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 0;                                      // 0: any free port
  size_t max_connections = 64;                       // served at once; more wait to be accepted
  size_t max_body_bytes = 64u << 20;                 // larger bodies get 413
  size_t max_header_bytes = 64u << 10;               // larger heads get 431
  std::chrono::milliseconds idle_timeout{5000};      // a keep-alive connection with no request
  std::chrono::milliseconds request_timeout{30000};  // first byte to last of one request: 408
  // After an answer, a connection whose client sent its last request within this long of
  // the answer before polls this long for the next one before its thread sleeps (0: never).
  std::chrono::microseconds busy_poll{50};
};

// Serves the requests that arrive on the connected socket `fd` until the client closes it,
// asks to close, times out, sends what is not HTTP (answered 400, 413 or 431 first), or
// `stopping` is set. Does not close `fd`. The listener runs it on each connection's thread;
// tests and the fuzzer run it on one end of a socket pair.
void serve_connection(int fd, const std::string& remote, const HttpHandler& handler,
                      const ListenerOptions& options, const std::atomic<bool>& stopping);

class HttpListener {
 public:
  HttpListener(ListenerOptions options, HttpHandler handler);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  void start();
  void stop();
  int port() const { return port_; }

 private:
  void accept_loop();
  void run_connection(int fd, std::string remote);

  ListenerOptions options_;
  HttpHandler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::set<int> open_;  // connections being served (their threads are detached)
};

}  // namespace skiff::serve
