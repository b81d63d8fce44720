"""StreamScorer: a model run over a stream, one result per input record in an output
stream, however often a crash makes the scorer replay.

Each micro-batch's results are appended under a key per input entry (a Redis script sets
the key and appends in one step, and appends nothing when the key is set); the input
entries are acknowledged after their results are written. A scorer killed at any moment
and restarted replays its pending entries, and the keys keep their results from being
written twice: at-least-once processing, exactly-once output."""
import time

import numpy as np

__all__ = ["StreamScorer"]


class StreamScorer:
    """Scores the batches of ``dataset`` (a skiff.io.StreamDataset) with
    ``predict(batch) -> array`` ([records, ...], e.g. a ``skiff.jit.load``'ed layer applied
    to a field) and appends to ``output`` one entry per input record: ``id`` (the input's
    entry ID, or its ``id_field``), ``result`` (the row's float32 bytes) and ``shape``."""

    def __init__(self, predict, dataset, output, id_field=None, key_ttl_seconds=7 * 86400):
        self.predict, self.dataset, self.output = predict, dataset, output
        self.id_field, self.key_ttl = id_field, key_ttl_seconds
        self.stats = {"records": 0, "written": 0, "replayed": 0}

    def run(self):
        """Scores until the dataset ends; returns the results written by this run."""
        source = self.dataset.source
        for batch in self.dataset:
            if len(batch):
                rows = np.asarray(self.predict(batch), dtype=np.float32)
                if rows.shape[0] != len(batch):
                    raise ValueError(f"predict gave {rows.shape[0]} rows for a batch of "
                                     f"{len(batch)} records")
                keys = (batch.ids if self.id_field is None
                        else [str(v) for v in np.asarray(batch[self.id_field]).reshape(-1)])
                shape = " ".join(str(d) for d in rows.shape[1:]).encode()
                now_ms = int(time.time() * 1000)
                ids = source.add_once_many(self.output, [
                    (f"{self.output}:seen:{key}",
                     {b"id": key, b"result": row.tobytes(), b"shape": shape, b"time_ms": now_ms})
                    for key, row in zip(keys, rows)], self.key_ttl)
                written = sum(i is not None for i in ids)
                self.stats["records"] += len(batch)
                self.stats["written"] += written
                self.stats["replayed"] += len(batch) - written
            source.ack(batch.ack_ids)
        return self.stats["written"]
