"""paddle.geometric for skiff: message passing over graph edges, segment reductions,
subgraph renumbering and neighbor sampling, all composed of skiff's tensor ops."""
from .message_passing import send_u_recv, send_ue_recv, send_uv  # noqa: F401
from .reindex import reindex_graph, reindex_heter_graph  # noqa: F401
from .sampling import sample_neighbors, weighted_sample_neighbors  # noqa: F401
from .segment import segment_max, segment_mean, segment_min, segment_sum  # noqa: F401

__all__ = ["send_u_recv", "send_ue_recv", "send_uv", "segment_sum", "segment_mean",
           "segment_min", "segment_max", "reindex_graph", "reindex_heter_graph",
           "sample_neighbors", "weighted_sample_neighbors"]
