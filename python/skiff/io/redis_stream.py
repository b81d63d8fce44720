"""One Redis stream read through a consumer group (the source of a StreamDataset), with the
calls the exactly-once protocol needs: this consumer's pending entries (delivered, not yet
acknowledged) to replay after a restart, acknowledgements that follow a checkpoint, and
appends that happen once per key however often they are replayed (results, dead letters).

The reading side is Python (redis-py with the hiredis parser): the records feed a Python
training or scoring loop, a batch of a few hundred records is one round trip, and decoding
is numpy's ``frombuffer``; a C++ reader would add a copy across the binding for no fewer
round trips. Every call retries while the server is away (restarting, loading its
append-only file) for up to ``retry_seconds``."""
import time

__all__ = ["RedisStream", "entry_id", "id_text"]

# For each entry of ARGV after the first (a key, a count n, then n field and value
# arguments): appends the fields to the stream KEYS[1] unless the key was set before (it
# is set now, for ARGV[1] seconds). One entry per key however often a replay asks; the
# new entries' IDs, false where the key was set.
_ADD_ONCE = """
local ttl, out, i = ARGV[1], {}, 2
while i <= #ARGV do
  local n = tonumber(ARGV[i + 1])
  if redis.call('SET', ARGV[i], '1', 'NX', 'EX', ttl) then
    out[#out + 1] = redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 2, i + 1 + n))
  else
    out[#out + 1] = false
  end
  i = i + 2 + n
end
return out
"""


def entry_id(text):
    """A stream entry ID ("1700000000000-3", bytes or str) as a comparable (ms, seq)."""
    if isinstance(text, bytes):
        text = text.decode()
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


def id_text(eid):
    return f"{eid[0]}-{eid[1]}"


class RedisStream:
    """``stream`` on the Redis server at ``address`` (HOST:PORT), read as ``consumer`` of
    ``group`` (created at the stream's start when missing). Keep a consumer's name across
    restarts: its pending entries are what a restart replays."""

    def __init__(self, stream, address="127.0.0.1:6379", group="skiff", consumer="0",
                 retry_seconds=60.0):
        import redis  # noqa: PLC0415 - requirements/build.txt; imported where streams are used

        self.stream, self.group, self.consumer = stream, group, consumer
        self.address = address
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"a Redis address is HOST:PORT, got {address!r}")
        self._errors = (redis.ConnectionError, redis.TimeoutError, redis.BusyLoadingError)
        self._response_error = redis.ResponseError
        self.client = redis.Redis(host=host, port=int(port), socket_timeout=30,
                                  socket_connect_timeout=5, health_check_interval=10)
        self.retry_seconds = retry_seconds
        self._add_once = self.client.register_script(_ADD_ONCE)
        self._call(self._create_group)

    def _create_group(self):
        try:
            self.client.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except self._response_error as e:
            if "BUSYGROUP" not in str(e):
                raise

    def _call(self, fn, *args, **kwargs):
        deadline = time.monotonic() + self.retry_seconds
        pause = 0.05
        while True:
            try:
                return fn(*args, **kwargs)
            except self._errors as e:
                if time.monotonic() > deadline:
                    raise ConnectionError(f"Redis at {self.address} did not answer for "
                                          f"{self.retry_seconds:g} s: {e}") from e
                time.sleep(pause)
                pause = min(pause * 2, 1.0)
            except self._response_error as e:
                if "NOGROUP" not in str(e):  # a server restarted without its data
                    raise
                self._create_group()

    def pending(self, count=1000):
        """This consumer's pending entries in ID order, [(id, fields)], in pages of
        ``count``; an entry trimmed from the stream since has fields None."""
        after = "0"
        while True:
            reply = self._call(self.client.xreadgroup, self.group, self.consumer,
                               {self.stream: after}, count=count)
            entries = reply[0][1] if reply else []
            if not entries:
                return
            yield from entries
            after = entries[-1][0]

    def read(self, count, block_ms):
        """Up to ``count`` entries never delivered to the group, waiting up to ``block_ms``
        for the first; [(id, fields)]."""
        reply = self._call(self.client.xreadgroup, self.group, self.consumer,
                           {self.stream: ">"}, count=count, block=block_ms)
        return reply[0][1] if reply else []

    def ack(self, ids):
        for start in range(0, len(ids), 10000):
            self._call(self.client.xack, self.stream, self.group, *ids[start:start + 10000])

    def add(self, fields, maxlen=None):
        return self._call(self.client.xadd, self.stream, fields, maxlen=maxlen,
                          approximate=True)

    def add_once(self, stream, key, fields, ttl_seconds=7 * 86400):
        """Appends ``fields`` to ``stream`` unless an append under ``key`` happened in the
        last ``ttl_seconds``; the entry's ID, or None when it was there already."""
        return self.add_once_many(stream, [(key, fields)], ttl_seconds)[0]

    def add_once_many(self, stream, entries, ttl_seconds=7 * 86400):
        """add_once for each (key, fields) of ``entries``, in one script run; their IDs
        (None where the key was set before)."""
        args = [ttl_seconds]
        for key, fields in entries:
            args += [key, 2 * len(fields)]
            for k, v in fields.items():
                args += [k, v]
        return [i or None for i in self._call(self._add_once, keys=[stream], args=args)]

    def lag(self):
        """Entries of the stream not yet delivered to the group (Redis 7's group lag)."""
        for group in self._call(self.client.xinfo_groups, self.stream):
            if group["name"] in (self.group, self.group.encode()):
                return group.get("lag")
        return None

    def close(self):
        self.client.close()
