#include "skiff/serve/http_listener.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

// GCC 12 sees a boost::optional in Boost 1.74's parser as maybe uninitialized when it
// inlines it under AddressSanitizer (a false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <optional>

#include "skiff/core/error.h"
#include "skiff/serve/tensor_codec.h"

namespace skiff::serve {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using Clock = std::chrono::steady_clock;

namespace {

bool same_letters(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Writes all of `head` then `body` with as few sendmsg calls as the socket allows (one,
// unless the send buffer fills). False when the peer is gone or the send timed out.
bool send_all(int fd, std::string_view head, std::string_view body) {
  iovec parts[2] = {{const_cast<char*>(head.data()), head.size()},
                    {const_cast<char*>(body.data()), body.size()}};
  msghdr msg{};
  msg.msg_iov = parts;
  msg.msg_iovlen = body.empty() ? 1 : 2;
  while (msg.msg_iovlen > 0) {
    const ssize_t n = ::sendmsg(fd, &msg, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    size_t left = static_cast<size_t>(n);
    while (msg.msg_iovlen > 0 && left >= msg.msg_iov[0].iov_len) {
      left -= msg.msg_iov[0].iov_len;
      ++msg.msg_iov;
      --msg.msg_iovlen;
    }
    if (msg.msg_iovlen > 0) {
      msg.msg_iov[0].iov_base = static_cast<char*>(msg.msg_iov[0].iov_base) + left;
      msg.msg_iov[0].iov_len -= left;
    }
  }
  return true;
}

bool write_response(int fd, const HttpResponse& res, bool keep_alive, bool head_only) {
  std::string head;
  head.reserve(160);
  head += "HTTP/1.1 ";
  head += std::to_string(res.status);
  head += ' ';
  const beast::string_view reason = bhttp::obsolete_reason(static_cast<bhttp::status>(res.status));
  head.append(reason.data(), reason.size());
  head += "\r\n";
  if (!res.content_type.empty()) {
    head += "Content-Type: ";
    head += res.content_type;
    head += "\r\n";
  }
  head += "Content-Length: ";
  head += std::to_string(res.body.size());
  head += "\r\n";
  for (const auto& [key, value] : res.headers) {
    head += key;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  if (!keep_alive) head += "Connection: close\r\n";
  head += "\r\n";
  return send_all(fd, head, head_only ? std::string_view() : std::string_view(res.body));
}

// An answer to a request that is not served (a malformed or oversized one, or one that
// took too long to arrive); the connection closes after it. What the client still sends
// (the rest of a body too large, say) is read and dropped for up to 2 s: closing a socket
// with unread bytes resets the connection, and the client would lose the answer.
void refuse(int fd, int status, const std::string& message) {
  HttpResponse res;
  res.status = status;
  res.content_type = "application/json";
  res.body = encode_error(message);
  if (!write_response(fd, res, /*keep_alive=*/false, /*head_only=*/false)) return;
  ::shutdown(fd, SHUT_WR);
  const Clock::time_point until = Clock::now() + std::chrono::seconds(2);
  char sink[16384];
  for (Clock::time_point now = Clock::now(); now < until; now = Clock::now()) {
    pollfd readable{fd, POLLIN, 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now);
    if (::poll(&readable, 1, static_cast<int>(left.count()) + 1) <= 0) return;
    if (::recv(fd, sink, sizeof sink, 0) <= 0) return;
  }
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The path's %XX escapes decoded; nullopt when one is broken.
std::optional<std::string> percent_decode(std::string_view path) {
  std::string out;
  out.reserve(path.size());
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] != '%') {
      out += path[i];
      continue;
    }
    if (i + 2 >= path.size()) return std::nullopt;
    const int hi = hex_digit(path[i + 1]), lo = hex_digit(path[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

void set_timeout(int fd, int option, std::chrono::milliseconds ms) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(ms.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(ms.count() % 1000 * 1000);
  ::setsockopt(fd, SOL_SOCKET, option, &tv, sizeof tv);
}

std::string seconds_text(std::chrono::milliseconds ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g s", ms.count() / 1000.0);
  return buf;
}

}  // namespace

std::string_view HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (same_letters(key, name)) return value;
  return {};
}

void serve_connection(int fd, const std::string& remote, const HttpHandler& handler,
                      const ListenerOptions& options, const std::atomic<bool>& stopping) {
  const int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // fails harmlessly off TCP
  // A blocked read wakes after this long to check the idle and request time limits.
  set_timeout(fd, SO_RCVTIMEO, std::min(options.idle_timeout, options.request_timeout));
  set_timeout(fd, SO_SNDTIMEO, options.request_timeout);

  // The bytes read and not yet parsed are buf[begin, end): a pipelined request's start
  // stays there for the next parser. A head must fit, so the buffer is larger than the
  // head limit.
  std::vector<char> buf(std::max<size_t>(64u << 10, options.max_header_bytes + 4096));
  size_t begin = 0, end = 0;
  Clock::time_point idle_since = Clock::now();
  bool poll_next = false;  // the last request came within busy_poll of the answer before it
  while (!stopping) {
    bhttp::request_parser<bhttp::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
    parser.body_limit(static_cast<std::uint64_t>(options.max_body_bytes));
    parser.eager(true);
    std::optional<Clock::time_point> arrived;
    if (begin < end) arrived = Clock::now();
    bool head_seen = false;
    while (true) {
      if (begin < end) {
        beast::error_code ec;
        const size_t used = parser.put(boost::asio::buffer(buf.data() + begin, end - begin), ec);
        begin += used;
        if (ec && ec != bhttp::error::need_more) {
          if (ec == bhttp::error::body_limit)
            refuse(fd, 413,
                   "the request body is larger than the limit of " +
                       std::to_string(options.max_body_bytes) + " bytes");
          else if (ec == bhttp::error::header_limit)
            refuse(fd, 431,
                   "the request head is larger than the limit of " +
                       std::to_string(options.max_header_bytes) + " bytes");
          else
            refuse(fd, 400, "bad HTTP request: " + ec.message());
          return;
        }
        if (parser.is_header_done() && !head_seen) {
          head_seen = true;
          const auto& req = parser.get();
          if (req.version() == 11 && !parser.is_done() &&
              beast::iequals(req[bhttp::field::expect], "100-continue") &&
              !send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", {}))
            return;
        }
        if (parser.is_done()) break;
        if (begin < end && !ec && used > 0) continue;  // it stopped short of the bytes it has
      }
      // More bytes are needed: keep the unparsed ones at the buffer's start.
      if (begin > 0) {
        std::memmove(buf.data(), buf.data() + begin, end - begin);
        end -= begin;
        begin = 0;
      }
      if (end == buf.size()) {
        refuse(fd, 431,
               "the request head is larger than the limit of " +
                   std::to_string(options.max_header_bytes) + " bytes");
        return;
      }
      // Between requests of a client that sends its next one at once, poll for it before
      // sleeping: waking a sleeping thread costs 10-40 us on a virtual machine.
      ssize_t n = -1;
      const bool poll = poll_next && !arrived;
      if (poll) {
        const Clock::time_point until = idle_since + options.busy_poll;
        do n = ::recv(fd, buf.data() + end, buf.size() - end, MSG_DONTWAIT);
        while (n < 0 && errno == EAGAIN && Clock::now() < until);
      }
      if (n < 0 && (!poll || errno == EAGAIN))
        n = ::recv(fd, buf.data() + end, buf.size() - end, 0);
      if (n > 0) {
        if (!arrived) {
          arrived = Clock::now();
          poll_next = *arrived - idle_since <= options.busy_poll;
        }
        end += static_cast<size_t>(n);
        continue;
      }
      if (n == 0 || stopping) return;  // closed (mid-request too: no one to answer)
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return;
      const Clock::time_point now = Clock::now();
      if (!arrived) {
        if (now - idle_since >= options.idle_timeout) return;
      } else if (now - *arrived >= options.request_timeout) {
        refuse(fd, 408,
               "the request did not arrive within " + seconds_text(options.request_timeout));
        return;
      }
    }

    bhttp::request<bhttp::string_body> msg = parser.release();
    HttpRequest req;
    req.method = std::string(msg.method_string());
    const beast::string_view target = msg.target();
    const size_t question = target.find('?');
    std::optional<std::string> path =
        percent_decode(std::string_view(target.data(), std::min(question, target.size())));
    if (!path) {
      refuse(fd, 400, "bad percent-encoding in the path '" + std::string(target) + "'");
      return;
    }
    req.path = std::move(*path);
    if (question != beast::string_view::npos) req.query = std::string(target.substr(question + 1));
    req.headers.reserve(8);
    for (const auto& field : msg)
      req.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    req.body = std::move(msg.body());
    req.remote = remote;
    req.arrived = *arrived;

    HttpResponse res;
    try {
      handler(req, res);
    } catch (const std::exception& e) {
      res = HttpResponse();
      res.status = 500;
      res.content_type = "application/json";
      res.body = encode_error(e.what());
    }
    const bool keep_alive = msg.keep_alive() && !stopping;
    if (!write_response(fd, res, keep_alive, req.method == "HEAD") || !keep_alive) return;
    idle_since = Clock::now();
  }
}

HttpListener::HttpListener(ListenerOptions options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

HttpListener::~HttpListener() { stop(); }

void HttpListener::start() {
  const std::string where = options_.host + ":" + std::to_string(options_.port);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc =
      ::getaddrinfo(options_.host.c_str(), std::to_string(options_.port).c_str(), &hints, &found);
  SKIFF_CHECK(rc == 0, "skiff serve: cannot bind HTTP to ", where, ": ", ::gai_strerror(rc));
  std::string failure = "no address";
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 1024) == 0) {
      listen_fd_ = fd;
    } else {
      failure = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  SKIFF_CHECK(listen_fd_ >= 0, "skiff serve: cannot bind HTTP to ", where, ": ", failure,
              " (in use, or not an address of this machine)");
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  port_ = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                      : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

void HttpListener::accept_loop() {
  while (!stopping_) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return stopping_ || open_.size() < options_.max_connections; });
    }
    if (stopping_) return;
    sockaddr_storage peer{};
    socklen_t len = sizeof peer;
    const int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&peer), &len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      // Out of descriptors (or a connection reset before it was taken): try again shortly.
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    char address[INET6_ADDRSTRLEN] = "";
    if (peer.ss_family == AF_INET6)
      ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&peer)->sin6_addr, address,
                  sizeof address);
    else
      ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&peer)->sin_addr, address,
                  sizeof address);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (stopping_) {
        ::close(fd);
        return;
      }
      open_.insert(fd);
    }
    std::thread([this, fd, remote = std::string(address)] { run_connection(fd, remote); }).detach();
  }
}

void HttpListener::run_connection(int fd, std::string remote) {
  serve_connection(fd, remote, handler_, options_, stopping_);
  // Closed under the lock: stop() shuts down only descriptors still in open_, never one
  // the system has handed to a newer connection.
  std::lock_guard<std::mutex> lock(mu_);
  open_.erase(fd);
  ::close(fd);
  changed_.notify_all();
}

void HttpListener::stop() {
  if (listen_fd_ < 0) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    changed_.notify_all();
  }
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  if (acceptor_.joinable()) acceptor_.join();
  ::close(listen_fd_);
  listen_fd_ = -1;
  std::unique_lock<std::mutex> lock(mu_);
  for (int fd : open_) ::shutdown(fd, SHUT_RDWR);  // wakes their reads
  changed_.wait(lock, [&] { return open_.empty(); });
}

}  // namespace skiff::serve
