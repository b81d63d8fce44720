"""StreamDataset: an IterableDataset over a Redis stream that yields micro-batches.

Micro-batches close by count (``batch_size``), by time (``max_wait`` seconds after their
first record), or by event time (``window`` ms tumbling windows on the ``event_time`` field,
closed by a watermark ``allowed_lateness`` ms behind the latest event time seen; a record for
a window already closed is late). A record that does not decode (or comes late) goes to the
dead-letter stream with its reason, once, and never stops the job.

Each batch carries the stream entries it settles (``ack_ids``: its records and the dead
letters since the batch before) and its ``position``: where reading resumes if the model is
saved with this batch applied. A trainer that saves the position with its checkpoint, and
acknowledges ``ack_ids`` only after the checkpoint is on disk, gets every record into
exactly one applied step across crashes: ``StreamDataset(..., resume=position)`` replays
this consumer's pending entries after the position and acknowledges those before it.

A reader thread fills a queue of at most ``prefetch`` batches: a slow consumer slows the
reading, and memory stays bounded."""
import collections
import queue
import threading
import time

from .dataset import IterableDataset
from .redis_stream import entry_id, id_text
from .stream_records import RecordError, Schema

__all__ = ["StreamBatch", "StreamDataset"]

_END = object()


class StreamBatch:
    """A micro-batch: ``data`` (the collated examples: {field: array} with a Schema),
    ``ids`` (its records' entry IDs), ``ack_ids`` (what acknowledging it settles),
    ``position`` (pass as ``resume=`` to continue after it), ``window`` ((start, end) in
    ms, or None). A batch with no records (``data`` None) only settles dead letters."""

    def __init__(self, data, ids, ack_ids, position, window=None):
        self.data, self.ids, self.ack_ids = data, ids, ack_ids
        self.position, self.window = position, window

    def __getitem__(self, name):
        return self.data[name]

    def __len__(self):
        return len(self.ids)

    def __repr__(self):
        window = f", window={self.window}" if self.window else ""
        return f"StreamBatch({len(self.ids)} records, position={self.position}{window})"


class StreamDataset(IterableDataset):
    """Micro-batches of the records of ``source`` (a skiff.io.RedisStream).

    ``schema`` (a Schema, or its {name: (dtype, shape[, encoding])} dict) decodes each
    record; or ``decode(fields) -> example`` with ``collate(examples) -> data``. Iteration
    ends after ``idle_timeout`` seconds without a new record or after ``max_records``
    records (both None: never; the last partial batch or open windows are flushed).
    ``dead_letters``: the stream bad records go to (default "<stream>:dead"; None raises
    instead)."""

    def __init__(self, source, schema=None, decode=None, collate=None, batch_size=64,
                 max_wait=None, event_time=None, window=None, allowed_lateness=0,
                 dead_letters="", idle_timeout=None, max_records=None, prefetch=4,
                 resume=None, read_count=None):
        if (schema is None) == (decode is None):
            raise ValueError("StreamDataset needs one of schema= or decode=")
        if schema is not None and not isinstance(schema, Schema):
            schema = Schema(schema)
        if (event_time is None) != (window is None):
            raise ValueError("event-time windows need both event_time= and window= (ms)")
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        self.source, self.schema = source, schema
        self.decode = decode or schema.decode
        self.decode_many = schema.decode_many if decode is None else self._decode_each
        self.collate = collate or (schema.collate if schema else list)
        self.batch_size, self.max_wait = batch_size, max_wait
        self.event_time, self.window, self.lateness = event_time, window, allowed_lateness
        self.dead_letters = (f"{source.stream}:dead" if dead_letters == "" else dead_letters)
        self.idle_timeout, self.max_records = idle_timeout, max_records
        self.prefetch = prefetch
        self.resume = dict(resume or {})
        self.read_count = read_count or max(batch_size, 256)
        self.stats = {"records": 0, "batches": 0, "dead_letters": 0, "late": 0}

    def _decode_each(self, records):
        out = []
        for fields in records:
            try:
                out.append(self.decode(fields))
            except (RecordError, ValueError, TypeError, KeyError) as e:
                out.append(RecordError(str(e)))
        return out

    def __iter__(self):
        out = queue.Queue(maxsize=self.prefetch)
        stop = threading.Event()
        reader = threading.Thread(target=self._read, args=(out, stop), daemon=True,
                                  name="skiff-stream-reader")
        reader.start()
        try:
            while True:
                item = out.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
            while reader.is_alive():
                try:
                    out.get(timeout=0.05)
                except queue.Empty:
                    pass
            reader.join()

    # The reader thread.

    def _read(self, out, stop):
        def put(item):
            while not stop.is_set():
                try:
                    out.put(item, timeout=0.1)
                    return True
                except queue.Full:
                    pass
            return False
        try:
            for batch in _Batcher(self, stop).batches():
                if not put(batch):
                    return
            put(_END)
        except BaseException as e:  # noqa: BLE001 - handed to the iterating thread
            put(e)


class _Batcher:
    """The reading and batching of one iteration (runs on the reader thread).

    Every entry handled joins ``unsettled`` in stream order and is acknowledged with the
    first batch whose position is at or after it. Event-time state at a position is the
    state as it was when the position's next record came, so that a replay from the
    position makes the same decisions (windows, lateness) as the run before it; windows
    that the resumed position had already applied are settled again without a batch."""

    def __init__(self, ds, stop):
        self.ds, self.stop = ds, stop
        pos = ds.resume
        self.applied = entry_id(pos["id"]) if "id" in pos else None
        self.pending = []  # (id, example) of the open count/time batch
        self.started = None  # when its first record came
        self.unsettled = collections.deque()  # handled entry IDs, not yet in a batch's acks
        self.carry = []  # acks of windows settled without a batch
        self.last = pos.get("id")  # the last entry handled
        self.handled = 0
        # Event time: the open windows {start: [(id, example, max event time and end of the
        # last emitted window before it)]}, the end of the last window emitted, the latest
        # event time seen, and the end of the last window the resumed model applied.
        self.windows = {}
        self.emitted_end = pos.get("emitted_end")
        self.max_event = pos.get("max_event_time")
        self.applied_end = pos.get("window_end")

    def batches(self):
        ds = self.ds
        settled = []
        replay = []
        for eid, fields in ds.source.pending():
            if fields is None or (self.applied is not None and entry_id(eid) <= self.applied):
                settled.append(eid)  # applied before the restart, or trimmed since
                continue
            replay.append((eid, fields))
        ds.source.ack(settled)
        for start in range(0, len(replay), ds.read_count):
            yield from self.handle_all(replay[start:start + ds.read_count])
        idle_since = time.monotonic()
        while not self.stop.is_set() and not self.done():
            block = 100
            if self.pending and ds.max_wait is not None:
                left = ds.max_wait - (time.monotonic() - self.started)
                block = max(1, min(block, int(left * 1000)))
            entries = ds.source.read(ds.read_count, block)
            yield from self.handle_all(entries)
            now = time.monotonic()
            if entries:
                idle_since = now
            if (self.pending and ds.max_wait is not None
                    and now - self.started >= ds.max_wait):
                yield self.emit_count()
            if ds.idle_timeout is not None and now - idle_since >= ds.idle_timeout:
                break
        yield from self.flush()

    def done(self):
        return self.ds.max_records is not None and self.handled >= self.ds.max_records

    def handle_all(self, entries):
        """Handles ``entries`` in order (decoded together), up to ``max_records``."""
        if self.ds.max_records is not None:
            entries = entries[:max(self.ds.max_records - self.handled, 0)]
        examples = self.ds.decode_many([fields for _, fields in entries])
        for (eid, fields), example in zip(entries, examples):
            yield from self.handle(eid, fields, example)

    def handle(self, eid, fields, example):
        ds = self.ds
        self.handled += 1
        self.last = eid.decode() if isinstance(eid, bytes) else eid
        self.unsettled.append(self.last)
        if isinstance(example, RecordError):
            self.dead(eid, fields, str(example))
            return
        if ds.window is None:
            if not self.pending:
                self.started = time.monotonic()
            self.pending.append((self.last, example))
            if len(self.pending) >= ds.batch_size:
                yield self.emit_count()
            return
        yield from self.handle_event(eid, fields, example)

    def handle_event(self, eid, fields, example):
        ds = self.ds
        try:
            t = int(example[ds.event_time].reshape(()))
        except (KeyError, TypeError, ValueError):
            self.dead(eid, fields, f"no scalar event time field '{ds.event_time}'")
            return
        start = t - t % ds.window
        if self.emitted_end is not None and start + ds.window <= self.emitted_end:
            ds.stats["late"] += 1
            self.dead(eid, fields, f"late: event time {t} ms is in window [{start}, "
                                   f"{start + ds.window}), closed by the watermark")
            return
        self.windows.setdefault(start, []).append(
            (self.last, example, self.max_event, self.emitted_end))
        self.max_event = t if self.max_event is None else max(self.max_event, t)
        watermark = self.max_event - ds.lateness
        for s in sorted(self.windows):
            if s + ds.window > watermark:
                break
            batch = self.emit_window(s)
            if batch is not None:
                yield batch

    def dead(self, eid, fields, reason):
        ds = self.ds
        if ds.dead_letters is None:
            raise RecordError(f"record {eid!r} of stream '{ds.source.stream}': {reason}")
        key = f"{ds.dead_letters}:seen:{eid.decode() if isinstance(eid, bytes) else eid}"
        letter = {b"source_id": eid, b"reason": reason.encode()}
        letter.update({b"field:" + k: v for k, v in fields.items()})
        if ds.source.add_once(ds.dead_letters, key, letter) is not None:
            ds.stats["dead_letters"] += 1

    def settle_until(self, position_id):
        """The unsettled entries at or before ``position_id``, and the carried acks."""
        limit = entry_id(position_id) if position_id is not None else None
        acks, self.carry = self.carry, []
        while self.unsettled and (limit is None or entry_id(self.unsettled[0]) <= limit):
            acks.append(self.unsettled.popleft())
        return acks

    def emit_count(self):
        ids = [eid for eid, _ in self.pending]
        data = self.ds.collate([ex for _, ex in self.pending])
        self.pending = []
        return self.emitted(StreamBatch(data, ids, self.settle_until(self.last),
                                        {"id": self.last}))

    def emit_window(self, start):
        records = self.windows.pop(start)
        end = self.emitted_end = start + self.ds.window
        held = [r for window in self.windows.values() for r in window]
        if held:  # resume just before the earliest record still held, in its state
            first = min(held, key=lambda r: entry_id(r[0]))
            position = {"id": id_text(_before(entry_id(first[0]))),
                        "max_event_time": first[2], "emitted_end": first[3]}
        else:
            position = {"id": self.last, "max_event_time": self.max_event,
                        "emitted_end": self.emitted_end}
        applied = self.applied_end is not None and end <= self.applied_end
        position["window_end"] = self.applied_end if applied else end
        acks = self.settle_until(position["id"])
        if applied:  # the resumed model has this window: settle it without a batch
            self.carry = acks
            return None
        ids = [eid for eid, _, _, _ in records]
        return self.emitted(StreamBatch(self.ds.collate([ex for _, ex, _, _ in records]), ids,
                                        acks, position, (start, end)))

    def emitted(self, batch):
        self.ds.stats["records"] += len(batch)
        self.ds.stats["batches"] += 1
        return batch

    def flush(self):
        if self.pending:
            yield self.emit_count()
        for start in sorted(self.windows):
            batch = self.emit_window(start)
            if batch is not None:
                yield batch
        if self.unsettled or self.carry:  # dead letters after the last batch
            position = {"id": self.last}
            if self.ds.window is not None:
                ends = [e for e in (self.applied_end, self.emitted_end) if e is not None]
                position.update(max_event_time=self.max_event, emitted_end=self.emitted_end,
                                window_end=max(ends) if ends else None)
            yield StreamBatch(None, [], self.settle_until(None), position)


def _before(eid):
    ms, seq = eid
    return (ms, seq - 1) if seq > 0 else (ms - 1, 2**63 - 1)
