#include "skiff/dist/etcd_client.h"

#include <curl/curl.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "skiff/dist/communicator.h"

namespace skiff::dist {

using nlohmann::json;

namespace {

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// etcd's gateway writes 64-bit integers as strings and leaves out zero values.
int64_t int_field(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return 0;
  if (it->is_string()) return std::stoll(it->get<std::string>());
  return it->get<int64_t>();
}

size_t append_reply(char* data, size_t size, size_t count, void* reply) {
  static_cast<std::string*>(reply)->append(data, size * count);
  return size * count;
}

// The byte after `prefix` in key order ends a prefix range, as etcd expects.
std::string prefix_end(std::string prefix) {
  while (!prefix.empty()) {
    unsigned char last = static_cast<unsigned char>(prefix.back());
    if (last < 0xff) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');  // every key
}

json put_request(const std::string& key, const std::string& value, int64_t lease) {
  json put = {{"key", base64_encode(key)}, {"value", base64_encode(value)}};
  if (lease != 0) put["lease"] = std::to_string(lease);
  return put;
}

KeyValue key_value(const json& kv) {
  KeyValue out;
  out.key = base64_decode(kv.value("key", ""));
  out.value = base64_decode(kv.value("value", ""));
  out.create_revision = int_field(kv, "create_revision");
  out.mod_revision = int_field(kv, "mod_revision");
  out.lease = int_field(kv, "lease");
  return out;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

}  // namespace

std::string base64_encode(const std::string& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < bytes.size(); i += 3) {
    uint32_t v = (uint8_t(bytes[i]) << 16) | (uint8_t(bytes[i + 1]) << 8) | uint8_t(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kBase64[(v >> s) & 63];
  }
  if (i < bytes.size()) {
    uint32_t v = uint8_t(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= uint8_t(bytes[i + 1]) << 8;
    out += kBase64[(v >> 18) & 63];
    out += kBase64[(v >> 12) & 63];
    out += i + 1 < bytes.size() ? kBase64[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(const std::string& text) {
  std::string out;
  uint32_t v = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const char* p = std::char_traits<char>::find(kBase64, 64, c);
    SKIFF_CHECK(p != nullptr, "etcd: bad base64 in a reply: '", text, "'");
    v = (v << 6) | static_cast<uint32_t>(p - kBase64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((v >> bits) & 0xff);
    }
  }
  return out;
}

EtcdClient::EtcdClient(const std::string& endpoint, std::chrono::milliseconds timeout)
    : endpoint_(endpoint), timeout_(timeout) {
  static CurlGlobal global;
  SKIFF_CHECK(!endpoint.empty(), "etcd: empty endpoint (expected HOST:PORT)");
  base_url_ = endpoint.rfind("http://", 0) == 0 ? endpoint : "http://" + endpoint;
  curl_ = curl_easy_init();
  SKIFF_CHECK(curl_ != nullptr, "etcd: curl_easy_init failed");
}

EtcdClient::~EtcdClient() { curl_easy_cleanup(static_cast<CURL*>(curl_)); }

std::string EtcdClient::call(const char* path, const std::string& body) {
  std::lock_guard<std::mutex> lock(mutex_);
  CURL* curl = static_cast<CURL*>(curl_);
  const std::string url = base_url_ + path;
  std::string reply;
  curl_easy_reset(curl);
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout_.count()));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout_.count()));
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_reply);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply);
  CURLcode rc = curl_easy_perform(curl);
  if (rc != CURLE_OK) {
    throw CommError(str_cat("cannot reach etcd at ", endpoint_, " (", path, ": ",
                            curl_easy_strerror(rc),
                            "); is it running? A job's etcd is given "
                            "with --etcd HOST:PORT"));
  }
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 500) {  // etcd is there but not serving (starting, no leader): transient
    throw CommError(
        str_cat("etcd at ", endpoint_, ": ", path, " answered HTTP ", status, ": ", reply));
  }
  SKIFF_CHECK(status == 200, "etcd at ", endpoint_, ": ", path, " answered HTTP ", status, ": ",
              reply);
  return reply;
}

int64_t EtcdClient::put(const std::string& key, const std::string& value, int64_t lease) {
  json reply = json::parse(call("/v3/kv/put", put_request(key, value, lease).dump()));
  return int_field(reply["header"], "revision");
}

std::optional<std::string> EtcdClient::get(const std::string& key) {
  json reply = json::parse(call("/v3/kv/range", json{{"key", base64_encode(key)}}.dump()));
  auto kvs = reply.find("kvs");
  if (kvs == reply.end() || kvs->empty()) return std::nullopt;
  return base64_decode((*kvs)[0].value("value", ""));
}

std::vector<KeyValue> EtcdClient::get_prefix(const std::string& prefix) {
  json request = {{"key", base64_encode(prefix)}, {"range_end", base64_encode(prefix_end(prefix))}};
  json reply = json::parse(call("/v3/kv/range", request.dump()));
  std::vector<KeyValue> out;
  auto kvs = reply.find("kvs");
  if (kvs == reply.end()) return out;
  for (const json& kv : *kvs) out.push_back(key_value(kv));
  return out;
}

int64_t EtcdClient::remove(const std::string& key) {
  json reply = json::parse(call("/v3/kv/deleterange", json{{"key", base64_encode(key)}}.dump()));
  return int_field(reply, "deleted");
}

int64_t EtcdClient::remove_prefix(const std::string& prefix) {
  json request = {{"key", base64_encode(prefix)}, {"range_end", base64_encode(prefix_end(prefix))}};
  return int_field(json::parse(call("/v3/kv/deleterange", request.dump())), "deleted");
}

bool EtcdClient::create(const std::string& key, const std::string& value, int64_t lease) {
  json request = {{"compare",
                   {{{"key", base64_encode(key)},
                     {"result", "EQUAL"},
                     {"target", "CREATE"},
                     {"create_revision", "0"}}}},
                  {"success", {{{"request_put", put_request(key, value, lease)}}}}};
  return json::parse(call("/v3/kv/txn", request.dump())).value("succeeded", false);
}

bool EtcdClient::compare_and_swap(const std::string& key, const std::string& expected,
                                  const std::string& value, int64_t lease) {
  json request = {{"compare",
                   {{{"key", base64_encode(key)},
                     {"result", "EQUAL"},
                     {"target", "VALUE"},
                     {"value", base64_encode(expected)}}}},
                  {"success", {{{"request_put", put_request(key, value, lease)}}}}};
  return json::parse(call("/v3/kv/txn", request.dump())).value("succeeded", false);
}

std::optional<std::string> EtcdClient::wait(const std::string& key,
                                            std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    if (std::optional<std::string> v = get(key)) return v;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

int64_t EtcdClient::grant_lease(int64_t ttl_seconds) {
  SKIFF_CHECK(ttl_seconds > 0, "etcd: a lease needs a positive TTL, got ", ttl_seconds);
  json reply = json::parse(call("/v3/lease/grant", json{{"TTL", ttl_seconds}}.dump()));
  const int64_t id = int_field(reply, "ID");
  SKIFF_CHECK(id != 0, "etcd at ", endpoint_, ": lease grant failed: ", reply.dump());
  return id;
}

int64_t EtcdClient::keep_alive(int64_t lease) {
  json reply = json::parse(call("/v3/lease/keepalive", json{{"ID", std::to_string(lease)}}.dump()));
  auto result = reply.find("result");
  return result == reply.end() ? 0 : int_field(*result, "TTL");
}

void EtcdClient::revoke_lease(int64_t lease) {
  call("/v3/lease/revoke", json{{"ID", std::to_string(lease)}}.dump());
}

}  // namespace skiff::dist
