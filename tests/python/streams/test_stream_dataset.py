"""skiff.io.StreamDataset over a real redis-server: decoding by schema, dead letters,
micro-batches by count, time and event-time window, resuming from a batch's position, and
backpressure."""
import threading
import time

import numpy as np
import pytest

from skiff.io import RecordError, RedisStream, Schema, StreamDataset

SCHEMA = Schema({"x": ("float32", [3]), "t": ("int64", [])})


def source(server, stream="s", consumer="c", group="g"):
    return RedisStream(stream, server.address, group=group, consumer=consumer)


def add(src, n, start=0, t=None):
    for i in range(start, start + n):
        src.add(SCHEMA.encode(x=[i, i, i], t=i if t is None else t(i)))


def drain(ds):
    return [b for b in ds]


def test_records_decode_by_schema_and_bad_ones_become_dead_letters(redis_server):
    src = source(redis_server)
    add(src, 5)
    src.add({b"x": b"\x00" * 5, b"t": b"\x00" * 8})  # 5 bytes for float32[3]
    src.add({b"t": b"\x00" * 8})  # no x
    src.add(SCHEMA.encode(x=[np.nan, 0, 0], t=9))  # NaN where the schema forbids it
    add(src, 2, start=5)
    ds = StreamDataset(src, schema=SCHEMA, batch_size=4, idle_timeout=0.3)
    batches = drain(ds)
    good = np.concatenate([b["x"][:, 0] for b in batches if len(b)])
    assert good.tolist() == [0, 1, 2, 3, 4, 5, 6]
    assert ds.stats["dead_letters"] == 3 and ds.stats["records"] == 7
    letters = src.client.xrange("s:dead")
    reasons = [fields[b"reason"].decode() for _, fields in letters]
    assert reasons == ["field 'x': 5 bytes, float32[3] needs 12",
                       "field 'x' is missing (the record has ['t'])",
                       "field 'x': NaN or infinity where the schema forbids it"]
    assert all(b"source_id" in fields for _, fields in letters)
    # Every entry, the dead ones too, is settled by some batch.
    assert sum(len(b.ack_ids) for b in batches) == 10


def test_text_fields_and_a_custom_decoder(redis_server):
    src = source(redis_server)
    src.add({b"x": b"1.5, 2 3", b"t": b"7"})
    src.add({b"x": b"1 two 3", b"t": b"8"})
    text = Schema({"x": ("float32", [3], "text"), "t": ("int64", [], "text")})
    ds = StreamDataset(src, schema=text, batch_size=8, idle_timeout=0.3)
    batches = drain(ds)
    assert batches[0]["x"].tolist() == [[1.5, 2, 3]] and batches[0]["t"].tolist() == [7]
    assert ds.stats["dead_letters"] == 1
    src2 = source(redis_server, stream="s2")
    src2.add({b"v": b"41"})

    def decode(fields):
        return int(fields[b"v"]) + 1
    assert [b.data for b in StreamDataset(src2, decode=decode, idle_timeout=0.3)] == [[42]]
    with pytest.raises(RecordError, match="field 'x'"):
        src3 = source(redis_server, stream="s3")
        src3.add({b"x": b"1"})
        drain(StreamDataset(src3, schema=SCHEMA, dead_letters=None, idle_timeout=0.3))


def test_a_batch_closes_by_count_or_after_max_wait(redis_server):
    src = source(redis_server)
    ds = StreamDataset(src, schema=SCHEMA, batch_size=100, max_wait=0.2, idle_timeout=1.0)

    def slow_producer():
        for i in range(6):
            add(src, 5, start=5 * i)
            time.sleep(0.25)
    producer = threading.Thread(target=slow_producer)
    producer.start()
    sizes = [len(b) for b in ds]
    producer.join()
    assert sum(sizes) == 30 and max(sizes) < 30, sizes  # closed by time, not by count


def test_event_time_windows_close_at_the_watermark_and_late_records_are_dead(redis_server):
    src = source(redis_server)
    # Event times (ms): windows of 100, lateness 50.
    times = [10, 20, 120, 30, 160, 210, 40, 260, 320]
    for i, t in enumerate(times):
        src.add(SCHEMA.encode(x=[i, 0, 0], t=t))
    ds = StreamDataset(src, schema=SCHEMA, event_time="t", window=100, allowed_lateness=50,
                       idle_timeout=0.3)
    batches = [b for b in ds if len(b)]
    got = [(b.window, sorted(b["t"].tolist())) for b in batches]
    # 160 moves the watermark to 110: [0, 100) closes with 10, 20, 30. 40 comes after: late.
    assert got == [((0, 100), [10, 20, 30]), ((100, 200), [120, 160]),
                   ((200, 300), [210, 260]), ((300, 400), [320])]
    assert ds.stats["late"] == 1
    reason = src.client.xrange("s:dead")[0][1][b"reason"].decode()
    assert reason.startswith("late: event time 40 ms is in window [0, 100)"), reason


def test_a_resumed_dataset_replays_exactly_the_records_after_the_position(redis_server):
    src = source(redis_server)
    add(src, 50)
    first = StreamDataset(src, schema=SCHEMA, batch_size=10, idle_timeout=0.3)
    it = iter(first)
    applied = [next(it) for _ in range(2)]
    src.ack(applied[0].ack_ids)  # the first batch's acknowledgement made it; the second's not
    it.close()  # the "crash": 3 more batches may have been read, none acknowledged
    position = applied[1].position
    again = StreamDataset(source(redis_server), schema=SCHEMA, batch_size=10, idle_timeout=0.3,
                          resume=position)
    replayed = [b for b in again if len(b)]
    assert np.concatenate([b["t"] for b in replayed]).tolist() == list(range(20, 50))
    pending = src.client.xpending("s", "g")["pending"]
    assert pending == 30  # 0-19 acknowledged (the second batch's on resume); 20-49 read


def test_event_windows_resume_as_the_run_before_went_on(redis_server):
    src = source(redis_server)
    rng = np.random.default_rng(3)
    times = np.cumsum(rng.integers(0, 40, 300)) - rng.integers(0, 120, 300)
    for i, t in enumerate(times):
        src.add(SCHEMA.encode(x=[i, 0, 0], t=max(int(t), 0)))

    def make(stream_source, resume=None):
        return StreamDataset(stream_source, schema=SCHEMA, event_time="t", window=200,
                             allowed_lateness=100, idle_timeout=0.3, resume=resume)
    whole = [(b.window, b["x"][:, 0].tolist()) for b in make(source(redis_server, group="a"))
             if len(b)]
    crashed = make(source(redis_server, group="b"))
    it = iter(crashed)
    kept = []
    while len(kept) < 4:
        b = next(it)
        if len(b):
            kept.append(b)
    crashed.source.ack([i for b in kept[:3] for i in b.ack_ids])
    it.close()
    resumed = make(source(redis_server, group="b"), resume=kept[3].position)
    rest = [(b.window, b["x"][:, 0].tolist()) for b in resumed if len(b)]
    assert [(b.window, b["x"][:, 0].tolist()) for b in kept] + rest == whole


def test_a_slow_consumer_slows_the_reading(redis_server):
    src = source(redis_server)
    add(src, 5000)
    ds = StreamDataset(src, schema=SCHEMA, batch_size=10, prefetch=2, read_count=20,
                       idle_timeout=0.5)
    it = iter(ds)
    next(it)
    time.sleep(0.5)  # the reader fills its queue, then waits
    read = int(src.client.xinfo_groups("s")[0]["entries-read"])
    assert read <= 10 * 4 + 20, read
    it.close()
