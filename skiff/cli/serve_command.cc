// skiff serve: the inference server over a model repository (docs/serve.md), until
// SIGINT or SIGTERM.
#include <signal.h>

#include <fstream>
#include <iostream>
#include <memory>

#include "skiff/cli/commands.h"
#include "skiff/serve/grpc_server.h"
#include "skiff/serve/http_server.h"
#include "skiff/serve/metrics.h"
#include "skiff/serve/model_manager.h"

namespace skiff::cli {

const char kServeHelp[] =
    "usage: skiff serve --model-repository DIR [--http-port 8000] [--grpc-port 8001|off]\n"
    "                   [--host 127.0.0.1] [--idle-unload S] [--repository-poll-secs S]\n"
    "                   [--max-concurrency N] [--request-timeout-ms MS] [--http-threads N]\n"
    "                   [--http-busy-poll-us US] [--max-body-mb MB] [--token-file F]\n"
    "                   [--access-log FILE|-] [--preload]\n"
    "\n"
    "Serves the models of DIR (Triton's layout: DIR/NAME/config.pbtxt, DIR/NAME/1/...)\n"
    "with the Open Inference Protocol (KServe v2) over HTTP and gRPC. A model loads when its\n"
    "first request arrives and, with --idle-unload, unloads after S seconds without requests.\n"
    "  --http-port P           0: any free port (the chosen one is printed)\n"
    "  --grpc-port P|off       gRPC's port (default 8001; any free one when --http-port is 0);\n"
    "                          off: HTTP only\n"
    "  --host H                the address to listen on; other than 127.0.0.1 needs a token\n"
    "  --idle-unload S         unload a model S seconds after its last request (0: never)\n"
    "  --repository-poll-secs S  re-read DIR every S seconds: new versions swap in, removed\n"
    "                          models unload (0: read it on demand only)\n"
    "  --max-concurrency N     requests answered at once; more get 503 at once (0: no limit)\n"
    "  --request-timeout-ms MS a request's deadline unless it sets its own (0: none)\n"
    "  --http-threads N        HTTP connections served at once, a thread each (64)\n"
    "  --http-busy-poll-us US  a connection whose client sends its next request at once\n"
    "                          polls US microseconds for it before its thread sleeps (50;\n"
    "                          0: never): lower latency for some CPU\n"
    "  --max-body-mb MB        larger request bodies get 413, larger gRPC messages\n"
    "                          RESOURCE_EXHAUSTED (64)\n"
    "  --token-file F          every endpoint but health needs Authorization: Bearer TOKEN\n"
    "                          (gRPC: the authorization metadata)\n"
    "  --access-log FILE|-     one JSON line per request, to FILE or standard error\n"
    "  --preload               load every model at start instead of on first request\n";

namespace {

struct ServeOptions {
  serve::ManagerOptions manager;
  serve::HttpOptions http;
  serve::GrpcOptions grpc;
  bool grpc_on = true;
  std::string token_file, access_log;
};

int64_t number_option(const std::string& option, const std::string& value) {
  size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 0)
    throw UsageError(option + " takes a non-negative whole number, got '" + value + "'");
  return n;
}

ServeOptions parse_serve_options(const Args& args) {
  ServeOptions o;
  bool port_given = false, grpc_port_given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string arg = args[i], value;
    if (arg == "--preload") {
      o.manager.preload = true;
      continue;
    }
    if (!option_value(args, &i, &arg, &value))
      throw UsageError("unexpected argument '" + arg + "'");
    if (arg == "--model-repository") {
      o.manager.repository = value;
    } else if (arg == "--http-port") {
      o.http.port = static_cast<int>(number_option(arg, value));
      port_given = true;
    } else if (arg == "--grpc-port") {
      o.grpc_on = value != "off";
      if (o.grpc_on) o.grpc.port = static_cast<int>(number_option(arg, value));
      grpc_port_given = true;
    } else if (arg == "--host") {
      o.http.host = value;
    } else if (arg == "--idle-unload") {
      o.manager.idle_unload = std::chrono::seconds(number_option(arg, value));
    } else if (arg == "--repository-poll-secs") {
      o.manager.poll_interval = std::chrono::seconds(number_option(arg, value));
    } else if (arg == "--max-concurrency") {
      o.manager.max_concurrency = static_cast<size_t>(number_option(arg, value));
    } else if (arg == "--request-timeout-ms") {
      o.manager.default_timeout = std::chrono::milliseconds(number_option(arg, value));
    } else if (arg == "--http-threads") {
      o.http.max_connections = static_cast<size_t>(std::max<int64_t>(1, number_option(arg, value)));
    } else if (arg == "--http-busy-poll-us") {
      o.http.busy_poll = std::chrono::microseconds(number_option(arg, value));
    } else if (arg == "--max-body-mb") {
      o.http.max_body_bytes = static_cast<size_t>(number_option(arg, value)) << 20;
    } else if (arg == "--token-file") {
      o.token_file = value;
    } else if (arg == "--access-log") {
      o.access_log = value;
    } else {
      throw UsageError("unknown option '" + arg + "'");
    }
  }
  if (o.manager.repository.empty()) throw UsageError("--model-repository DIR is needed");
  if (o.http.port > 65535) throw UsageError("--http-port must be at most 65535");
  if (o.grpc.port > 65535) throw UsageError("--grpc-port must be at most 65535, or off");
  if (!port_given) o.http.port = 8000;
  // Triton's ports by default; beside an HTTP port chosen by the system, a gRPC one too.
  if (!grpc_port_given) o.grpc.port = o.http.port == 0 ? 0 : 8001;
  if (o.grpc_on && o.grpc.port != 0 && o.grpc.port == o.http.port)
    throw UsageError("--grpc-port and --http-port are both " + std::to_string(o.http.port));
  o.grpc.host = o.http.host;
  o.grpc.max_message_bytes = o.http.max_body_bytes;
  return o;
}

std::string read_token(const std::string& path) {
  std::ifstream in(path);
  SKIFF_CHECK(in, "cannot read the token file '", path, "'");
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  SKIFF_CHECK(token.size() >= 16, "the token in '", path, "' is shorter than 16 characters");
  return token;
}

}  // namespace

int serve_command(const Args& args) {
  ServeOptions o = parse_serve_options(args);
  if (!o.token_file.empty()) o.http.token = o.grpc.token = read_token(o.token_file);
  SKIFF_CHECK(!o.http.token.empty() || o.http.host == "127.0.0.1" || o.http.host == "localhost",
              "skiff serve: listening on ", o.http.host, " needs --token-file (only 127.0.0.1 ",
              "may serve without one)");
  std::unique_ptr<std::ofstream> log_file;
  if (o.access_log == "-") {
    o.http.access_log = &std::cerr;
  } else if (!o.access_log.empty()) {
    log_file = std::make_unique<std::ofstream>(o.access_log, std::ios::app);
    SKIFF_CHECK(*log_file, "cannot open the access log '", o.access_log, "'");
    o.http.access_log = log_file.get();
  }

  // The signals are taken by sigwait below, not by the server's threads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  serve::Metrics metrics;
  serve::ModelManager models(o.manager, &metrics);
  serve::HttpServer http(&models, &metrics, o.http);
  http.start();
  std::unique_ptr<serve::GrpcServer> grpc;
  if (o.grpc_on) {
    grpc = std::make_unique<serve::GrpcServer>(&models, &metrics, o.grpc);
    grpc->start();
  }
  std::cout << "skiff serve: HTTP on " << o.http.host << ":" << http.port();
  if (grpc) std::cout << ", gRPC on " << o.grpc.host << ":" << grpc->port();
  std::cout << ", models in " << o.manager.repository << std::endl;
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  std::cout << "skiff serve: stopping (signal " << signal_number << ")" << std::endl;
  if (grpc) grpc->stop();
  http.stop();
  return 0;
}

}  // namespace skiff::cli
