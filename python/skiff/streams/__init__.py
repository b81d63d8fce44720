"""Training and inference on unbounded streams (docs/streams.md).

`OnlineTrainer` applies micro-batches of a `skiff.io.StreamDataset` to a model with
exactly-once updates: each checkpoint holds the model, the optimizer and the stream position
the applied steps reached, and the broker's acknowledgements follow the checkpoint. After a
crash it resumes from the checkpoint and replays exactly the records after it.
`StreamScorer` runs a model over a stream and writes one result per input record to an
output stream, however often a crash makes it replay.
"""
from .online import OnlineTrainer
from .scorer import StreamScorer

__all__ = ["OnlineTrainer", "StreamScorer"]
