"""fleet.meta_parallel (Paddle's paddle.distributed.fleet.meta_parallel): tensor-parallel
layers, pipeline parallelism and the wrappers fleet.distributed_model picks for a hybrid
layout."""
