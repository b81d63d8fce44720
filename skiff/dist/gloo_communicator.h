// The CPU communicator: Gloo's collectives over TCP, its ranks introduced to one
// another through etcd (each rank writes its address under a prefix and reads the
// others'). Gloo's headers stay in gloo_communicator.cc.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "skiff/dist/communicator.h"
#include "skiff/dist/etcd_client.h"

namespace skiff::dist {

struct GlooOptions {
  // The address this rank's peers reach it at (its node's address on a cluster).
  std::string hostname = "127.0.0.1";
  // How long connecting and each collective wait for the peers.
  std::chrono::milliseconds timeout = std::chrono::seconds(30);
};

// Rank `rank` of `size` joins the communicator whose ranks meet under `prefix` in etcd;
// every rank calls it with the same prefix (one prefix per communicator: a new one for
// each membership epoch). Throws CommError when the peers do not all come in time.
std::shared_ptr<Communicator> connect_gloo(EtcdClient& etcd, const std::string& prefix, int rank,
                                           int size, const GlooOptions& options = {});

}  // namespace skiff::dist
