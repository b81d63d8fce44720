"""fleet.meta_parallel (Paddle's paddle.distributed.fleet.meta_parallel): tensor-parallel
layers, pipeline parallelism and the wrappers fleet.distributed_model picks for a hybrid
layout."""
from .mp_layers import (ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear,
                        VocabParallelEmbedding)
from .pipeline_layer import LayerDesc, PipelineLayer, SharedLayerDesc
from .pipeline_parallel import PipelineParallel
from .random import RNGStatesTracker, get_rng_state_tracker, model_parallel_random_seed
from .tensor_parallel import TensorParallel

__all__ = ["ColumnParallelLinear", "RowParallelLinear", "VocabParallelEmbedding",
           "ParallelCrossEntropy", "RNGStatesTracker", "get_rng_state_tracker",
           "model_parallel_random_seed", "TensorParallel", "LayerDesc", "SharedLayerDesc",
           "PipelineLayer", "PipelineParallel"]
