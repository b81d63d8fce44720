// A client of etcd's v3 API (through the JSON gateway every etcd server serves on its
// client port): keys and values, atomic create, prefixes, and leases. The elastic
// machinery keeps membership, rendezvous and data-chunk leases in etcd with it.
//
//   dist::EtcdClient etcd("127.0.0.1:2379");
//   int64_t lease = etcd.grant_lease(10);               // seconds
//   etcd.create("/job/members/3", "host:port", lease);  // false if the key exists
//   etcd.keep_alive(lease);                             // before the TTL passes
//
// Calls are synchronous and thread-safe; each gives up after the client's timeout with
// a skiff::Error naming the endpoint (an unreachable etcd is a CommError: the network).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace skiff::dist {

struct KeyValue {
  std::string key;
  std::string value;
  int64_t create_revision = 0;
  int64_t mod_revision = 0;
  int64_t lease = 0;
};

class EtcdClient {
 public:
  // `endpoint`: "HOST:PORT" or "http://HOST:PORT".
  explicit EtcdClient(const std::string& endpoint,
                      std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~EtcdClient();
  EtcdClient(const EtcdClient&) = delete;
  EtcdClient& operator=(const EtcdClient&) = delete;

  const std::string& endpoint() const { return endpoint_; }

  // Returns the store's revision after the write.
  int64_t put(const std::string& key, const std::string& value, int64_t lease = 0);
  std::optional<std::string> get(const std::string& key);
  // Every key starting with `prefix`, in key order.
  std::vector<KeyValue> get_prefix(const std::string& prefix);
  // Returns how many keys were deleted.
  int64_t remove(const std::string& key);
  int64_t remove_prefix(const std::string& prefix);
  // Puts only if `key` does not exist; true when it was written.
  bool create(const std::string& key, const std::string& value, int64_t lease = 0);
  // Puts only if `key` holds `expected`; true when it was written.
  bool compare_and_swap(const std::string& key, const std::string& expected,
                        const std::string& value, int64_t lease = 0);
  // Waits (polling) until `key` exists; nullopt after `timeout`.
  std::optional<std::string> wait(const std::string& key, std::chrono::milliseconds timeout);

  // A lease of `ttl_seconds`: keys put with it vanish when it is not kept alive.
  int64_t grant_lease(int64_t ttl_seconds);
  // Renews the lease; returns its TTL in seconds, 0 when it has already expired.
  int64_t keep_alive(int64_t lease);
  void revoke_lease(int64_t lease);

 private:
  // POSTs `body` (JSON) to `path` and returns the JSON reply's text.
  std::string call(const char* path, const std::string& body);

  std::string endpoint_;
  std::string base_url_;
  std::chrono::milliseconds timeout_;
  std::mutex mutex_;
  void* curl_ = nullptr;  // CURL*, used under mutex_
};

// Base64 as etcd's JSON gateway writes keys and values.
std::string base64_encode(const std::string& bytes);
std::string base64_decode(const std::string& text);

}  // namespace skiff::dist
