// The job this process was launched in (skiff.distributed.launch, `skiff launch`), read
// from the environment the launcher gives each worker, and joining it from C++: what a
// compiled model with collective ops does when a context is made (a Python worker joins
// through skiff.distributed.init_parallel_env instead).
//
//   dist::init_parallel_env();                     // ring 0: this process's world
//   dist::communicator(0)->all_reduce(grad, dist::ReduceOp::kAvg);
#pragma once

#include <chrono>
#include <string>

namespace skiff::dist {

struct ParallelEnv {
  int rank = 0;
  int world_size = 1;
  std::string etcd;  // "HOST:PORT" of the job's etcd ("" outside a job)
  std::string job_id = "default";
  std::string host = "127.0.0.1";  // the address peers reach this worker at
  std::chrono::milliseconds timeout = std::chrono::seconds(60);

  // SKIFF_RANK, SKIFF_WORLD_SIZE (or Paddle's PADDLE_TRAINER_ID, PADDLE_TRAINERS_NUM),
  // SKIFF_ETCD, SKIFF_JOB_ID, SKIFF_HOST, SKIFF_COMM_TIMEOUT (seconds); outside a launched
  // job, rank 0 of 1. Throws naming the variable for a value that is not a number and for
  // a rank outside the world.
  static ParallelEnv from_environment();
};

// Makes ring 0 this process's world: the Gloo communicator of the launched job (ranks
// meet under rendezvous_prefix(job, 0, 0) in its etcd), or the single-process one outside
// a job. No-op when ring 0 already has a communicator. Throws CommError when the peers do
// not come within the timeout.
void init_parallel_env();

}  // namespace skiff::dist
