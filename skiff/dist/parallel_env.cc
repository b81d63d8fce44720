#include "skiff/dist/parallel_env.h"

#include <cstdlib>
#include <memory>
#include <mutex>

#include "skiff/dist/gloo_communicator.h"

namespace skiff::dist {

namespace {

const char* env_value(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// The first of `names` that is set, as a number; `fallback` when none is.
double env_number(std::initializer_list<const char*> names, double fallback) {
  for (const char* name : names) {
    const char* v = env_value(name);
    if (!v) continue;
    char* end = nullptr;
    const double n = std::strtod(v, &end);
    SKIFF_CHECK(end && *end == '\0', "skiff.distributed: ", name, "='", v, "' is not a number");
    return n;
  }
  return fallback;
}

}  // namespace

ParallelEnv ParallelEnv::from_environment() {
  ParallelEnv env;
  env.rank = static_cast<int>(env_number({"SKIFF_RANK", "PADDLE_TRAINER_ID"}, 0));
  env.world_size = static_cast<int>(env_number({"SKIFF_WORLD_SIZE", "PADDLE_TRAINERS_NUM"}, 1));
  SKIFF_CHECK(env.rank >= 0 && env.rank < env.world_size, "skiff.distributed: rank ", env.rank,
              " is not in [0, ", env.world_size, ") (SKIFF_RANK / SKIFF_WORLD_SIZE)");
  if (const char* v = env_value("SKIFF_ETCD")) env.etcd = v;
  if (const char* v = env_value("SKIFF_JOB_ID")) env.job_id = v;
  if (const char* v = env_value("SKIFF_HOST")) env.host = v;
  env.timeout = std::chrono::milliseconds(
      static_cast<int64_t>(env_number({"SKIFF_COMM_TIMEOUT"}, 60) * 1000));
  return env;
}

void init_parallel_env() {
  static std::mutex mutex;
  static std::unique_ptr<EtcdClient> etcd;  // the rendezvous store outlives the communicator
  std::lock_guard<std::mutex> lock(mutex);
  if (find_communicator(0)) return;
  const ParallelEnv env = ParallelEnv::from_environment();
  if (env.world_size == 1) {
    set_communicator(0, single_process_communicator());
    return;
  }
  SKIFF_CHECK(!env.etcd.empty(), "skiff.distributed: SKIFF_WORLD_SIZE is ", env.world_size,
              " but SKIFF_ETCD is not set; start workers with python -m "
              "skiff.distributed.launch (or skiff launch)");
  if (!etcd || etcd->endpoint() != env.etcd) etcd = std::make_unique<EtcdClient>(env.etcd);
  GlooOptions options;
  options.hostname = env.host;
  options.timeout = env.timeout;
  set_communicator(0, connect_gloo(*etcd, rendezvous_prefix(env.job_id, 0, 0), env.rank,
                                   env.world_size, options));
}

}  // namespace skiff::dist
