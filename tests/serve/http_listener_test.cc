// The HTTP/1.1 connection loop (serve/http_listener.h): requests written byte for byte on
// one end of a socket pair, the answers read on it; and the listener over TCP.
#include "skiff/serve/http_listener.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace skiff::serve {
namespace {

using namespace std::chrono_literals;

// Answers "METHOD PATH?QUERY|BODY", with X-Seen echoing the request's X-Test header.
void echo(const HttpRequest& req, HttpResponse& res) {
  if (req.path == "/throw") throw std::runtime_error("the handler failed");
  res.content_type = "text/plain";
  res.headers.emplace_back("X-Seen", std::string(req.header("x-test")));
  res.body = req.method + " " + req.path + "?" + req.query + "|" + req.body;
}

struct Answer {
  int status = 0;
  std::string head, body;
  bool closed = false;  // the connection closed after it
};

// Reads the answers from `fd` (one of each call to next()).
class Reader {
 public:
  explicit Reader(int fd) : fd_(fd) {}

  // The next answer (without a body after `head_only`); status 0 when the connection
  // closed first.
  Answer next(bool head_only = false) {
    Answer a;
    size_t head_end;
    while ((head_end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (!fill()) return a;
    a.head = buf_.substr(0, head_end + 4);
    a.status = std::atoi(a.head.c_str() + 9);
    size_t length = 0;
    const size_t at = a.head.find("Content-Length: ");
    if (at != std::string::npos) length = std::strtoul(a.head.c_str() + at + 16, nullptr, 10);
    if (a.status == 100 || head_only) length = 0;
    while (buf_.size() < head_end + 4 + length)
      if (!fill()) return a;
    a.body = buf_.substr(head_end + 4, length);
    buf_.erase(0, head_end + 4 + length);
    return a;
  }

  // Whether the peer closed its end (waiting up to `wait` for it).
  bool closed(std::chrono::milliseconds wait = 3000ms) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(wait.count())) <= 0) return false;
    char c;
    return ::recv(fd_, &c, 1, MSG_PEEK) <= 0;
  }

 private:
  bool fill() {
    char chunk[4096];
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 5000) <= 0) return false;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n <= 0) return false;
    buf_.append(chunk, static_cast<size_t>(n));
    return true;
  }

  int fd_;
  std::string buf_;
};

// serve_connection on one end of a socket pair, on its own thread.
class Connection {
 public:
  explicit Connection(ListenerOptions options = {}, HttpHandler handler = echo)
      : options_(std::move(options)), handler_(std::move(handler)) {
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0);
    reader_ = Reader(fds_[0]);
    thread_ = std::thread([this] {
      serve_connection(fds_[1], "peer", handler_, options_, stopping_);
      ::shutdown(fds_[1], SHUT_RDWR);
    });
  }
  ~Connection() {
    stopping_ = true;
    ::shutdown(fds_[0], SHUT_RDWR);
    thread_.join();
    ::close(fds_[0]);
    ::close(fds_[1]);
  }
  void send(const std::string& bytes) {
    ASSERT_EQ(::send(fds_[0], bytes.data(), bytes.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(bytes.size()));
  }
  Answer next(bool head_only = false) { return reader_.next(head_only); }
  bool closed(std::chrono::milliseconds wait = 3000ms) { return reader_.closed(wait); }

 private:
  ListenerOptions options_;
  HttpHandler handler_;
  std::atomic<bool> stopping_{false};
  int fds_[2] = {-1, -1};
  Reader reader_{0};
  std::thread thread_;
};

std::unique_ptr<Connection> connect(ListenerOptions options = {}, HttpHandler handler = echo) {
  return std::make_unique<Connection>(std::move(options), std::move(handler));
}

TEST(HttpConnection, KeepAliveServesRequestsInTurn) {
  auto c = connect();
  c->send("GET /v2/health/live HTTP/1.1\r\nHost: h\r\nX-Test: one\r\n\r\n");
  Answer a = c->next();
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "GET /v2/health/live?|");
  EXPECT_NE(a.head.find("X-Seen: one\r\n"), std::string::npos) << a.head;
  EXPECT_NE(a.head.find("Content-Type: text/plain\r\n"), std::string::npos) << a.head;
  EXPECT_EQ(a.head.find("Connection: close"), std::string::npos) << a.head;
  c->send("POST /v2/models/m/infer?x=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello");
  a = c->next();
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "POST /v2/models/m/infer?x=1|hello");
  EXPECT_FALSE(c->closed(50ms));
}

TEST(HttpConnection, PipelinedRequestsAreAnsweredInOrder) {
  auto c = connect();
  c->send(
      "POST /a HTTP/1.1\r\nContent-Length: 1\r\n\r\n1"
      "GET /b HTTP/1.1\r\n\r\n"
      "POST /c HTTP/1.1\r\nContent-Length: 3\r\n\r\n333");
  EXPECT_EQ(c->next().body, "POST /a?|1");
  EXPECT_EQ(c->next().body, "GET /b?|");
  EXPECT_EQ(c->next().body, "POST /c?|333");
}

TEST(HttpConnection, ARequestSplitAcrossWritesIsPutTogether) {
  auto c = connect();
  const std::string request = "POST /split HTTP/1.1\r\nContent-Length: 10\r\n\r\n0123456789";
  for (char byte : request) c->send(std::string(1, byte));
  EXPECT_EQ(c->next().body, "POST /split?|0123456789");
}

TEST(HttpConnection, ChunkedBodiesAreDecoded) {
  auto c = connect();
  c->send("POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nWiki\r\n5\r\npedia\r\n");
  c->send("0\r\n\r\n");
  EXPECT_EQ(c->next().body, "POST /c?|Wikipedia");
}

TEST(HttpConnection, ExpectContinueIsAnsweredBeforeTheBody) {
  auto c = connect();
  c->send("POST /e HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n");
  EXPECT_EQ(c->next().status, 100);
  c->send("body");
  EXPECT_EQ(c->next().body, "POST /e?|body");
}

TEST(HttpConnection, ABodyOverTheLimitGets413BeforeItIsSent) {
  ListenerOptions o;
  o.max_body_bytes = 10;
  auto c = connect(o);
  c->send("POST /big HTTP/1.1\r\nContent-Length: 11\r\nExpect: 100-continue\r\n\r\n");
  const Answer a = c->next();
  EXPECT_EQ(a.status, 413);
  EXPECT_NE(a.body.find("larger than the limit of 10 bytes"), std::string::npos) << a.body;
  EXPECT_NE(a.head.find("Connection: close"), std::string::npos) << a.head;
  EXPECT_TRUE(c->closed());
}

TEST(HttpConnection, AChunkedBodyOverTheLimitGets413) {
  ListenerOptions o;
  o.max_body_bytes = 10;
  auto c = connect(o);
  c->send(
      "POST /big HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n01234567\r\n8\r\n01234567\r\n");
  EXPECT_EQ(c->next().status, 413);
}

TEST(HttpConnection, AHeadOverTheLimitGets431) {
  ListenerOptions o;
  o.max_header_bytes = 1024;
  auto c = connect(o);
  c->send("GET / HTTP/1.1\r\nX-Long: " + std::string(4096, 'a') + "\r\n\r\n");
  const Answer a = c->next();
  EXPECT_EQ(a.status, 431);
  EXPECT_NE(a.body.find("head is larger than the limit of 1024 bytes"), std::string::npos);
}

TEST(HttpConnection, WhatIsNotHttpGets400AndTheConnectionCloses) {
  for (const char* bytes :
       {"HELLO\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "GET / HTTP/1.1\r\nNo colon\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n",
        "POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"}) {
    auto c = connect();
    c->send(bytes);
    const Answer a = c->next();
    EXPECT_EQ(a.status, 400) << bytes;
    EXPECT_NE(a.body.find("bad HTTP request"), std::string::npos) << a.body;
    EXPECT_TRUE(c->closed()) << bytes;
  }
}

TEST(HttpConnection, ThePathIsPercentDecoded) {
  auto c = connect();
  c->send("GET /v2/models/my%20model?q=%20 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(c->next().body, "GET /v2/models/my model?q=%20|");
  c->send("GET /bad%2 HTTP/1.1\r\n\r\n");
  const Answer a = c->next();
  EXPECT_EQ(a.status, 400);
  EXPECT_NE(a.body.find("bad percent-encoding in the path '/bad%2'"), std::string::npos);
}

TEST(HttpConnection, HeadAnswersCarryNoBody) {
  auto c = connect();
  c->send("HEAD /h HTTP/1.1\r\n\r\nGET /g HTTP/1.1\r\n\r\n");
  // The HEAD answer has the Content-Length of its body ("HEAD /h?|"), but no body follows:
  // the next bytes are the next answer.
  const Answer head = c->next(/*head_only=*/true);
  EXPECT_EQ(head.status, 200);
  EXPECT_NE(head.head.find("Content-Length: 9\r\n"), std::string::npos) << head.head;
  const Answer get = c->next();
  EXPECT_EQ(get.status, 200);
  EXPECT_EQ(get.body, "GET /g?|");
}

TEST(HttpConnection, Http10AndConnectionCloseEndTheConnection) {
  for (const char* request :
       {"GET /old HTTP/1.0\r\n\r\n", "GET /bye HTTP/1.1\r\nConnection: close\r\n\r\n"}) {
    auto c = connect();
    c->send(request);
    const Answer a = c->next();
    EXPECT_EQ(a.status, 200);
    EXPECT_NE(a.head.find("Connection: close"), std::string::npos) << a.head;
    EXPECT_TRUE(c->closed()) << request;
  }
}

TEST(HttpConnection, ARequestTooSlowToArriveGets408) {
  ListenerOptions o;
  o.request_timeout = 200ms;
  auto c = connect(o);
  c->send("POST /slow HTTP/1.1\r\nContent-Length: 5\r\n\r\nab");
  const Answer a = c->next();
  EXPECT_EQ(a.status, 408);
  EXPECT_NE(a.body.find("did not arrive within 0.2 s"), std::string::npos) << a.body;
}

TEST(HttpConnection, AnIdleConnectionIsClosed) {
  ListenerOptions o;
  o.idle_timeout = 100ms;
  auto c = connect(o);
  c->send("GET /once HTTP/1.1\r\n\r\n");
  EXPECT_EQ(c->next().status, 200);
  EXPECT_TRUE(c->closed(2000ms));
}

TEST(HttpConnection, AHandlerThatThrowsGives500AndTheConnectionLives) {
  auto c = connect();
  c->send("GET /throw HTTP/1.1\r\n\r\n");
  const Answer a = c->next();
  EXPECT_EQ(a.status, 500);
  EXPECT_EQ(a.body, R"({"error":"the handler failed"})");
  c->send("GET /after HTTP/1.1\r\n\r\n");
  EXPECT_EQ(c->next().status, 200);
}

TEST(HttpConnection, BusyPollingChangesNoAnswer) {
  for (auto poll : {0us, 5000us}) {
    ListenerOptions o;
    o.busy_poll = poll;
    auto c = connect(o);
    for (int i = 0; i < 20; ++i) {
      c->send("POST /p HTTP/1.1\r\nContent-Length: 2\r\n\r\n" + std::to_string(10 + i));
      EXPECT_EQ(c->next().body, "POST /p?|" + std::to_string(10 + i));
    }
  }
}

// A TCP connection to the listener on 127.0.0.1.
int dial(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  return fd;
}

void send_text(int fd, const std::string& text) {
  ASSERT_EQ(::send(fd, text.data(), text.size(), MSG_NOSIGNAL), static_cast<ssize_t>(text.size()));
}

TEST(HttpListener, ServesOverTcpAndStopsWithConnectionsOpen) {
  HttpListener listener({}, echo);
  listener.start();
  ASSERT_GT(listener.port(), 0);
  const int fd = dial(listener.port());
  Reader reader(fd);
  send_text(fd, "GET /tcp HTTP/1.1\r\nX-Test: t\r\n\r\n");
  const Answer a = reader.next();
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.body, "GET /tcp?|");
  // The connection stays open (keep-alive, idle); stop() closes it and returns.
  const auto t0 = std::chrono::steady_clock::now();
  listener.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 2s);
  EXPECT_TRUE(reader.closed());
  ::close(fd);
}

TEST(HttpListener, ConnectionsBeyondTheLimitWaitForAFreeOne) {
  ListenerOptions o;
  o.max_connections = 1;
  HttpListener listener(o, echo);
  listener.start();
  const int first = dial(listener.port()), second = dial(listener.port());
  Reader first_reader(first), second_reader(second);
  send_text(first, "GET /1 HTTP/1.1\r\n\r\n");
  EXPECT_EQ(first_reader.next().body, "GET /1?|");
  send_text(second, "GET /2 HTTP/1.1\r\n\r\n");
  pollfd p{second, POLLIN, 0};
  EXPECT_EQ(::poll(&p, 1, 200), 0) << "served beyond max_connections";
  ::close(first);
  EXPECT_EQ(second_reader.next().body, "GET /2?|");
  ::close(second);
}

TEST(HttpListener, ABusyPortIsNamedInTheError) {
  HttpListener first({}, echo);
  first.start();
  ListenerOptions o;
  o.port = first.port();
  HttpListener second(o, echo);
  try {
    second.start();
    FAIL() << "bound a port in use";
  } catch (const std::exception& e) {
    EXPECT_NE(
        std::string(e.what()).find("cannot bind HTTP to 127.0.0.1:" + std::to_string(first.port())),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace skiff::serve
