"""Reading a job's log (JOBDIR/log, written by its runner) by line number, as it grows.

Lines are numbered from 0; a follower that asks for line N gets N and what comes after,
whenever it connects, so a reconnecting follower (SSE's Last-Event-ID) misses nothing and
sees nothing twice. The index keeps the byte offset of every 256th line, so its memory
stays small however long the log grows; only complete lines (ending in a newline) are
counted.

    index = LogIndex(os.path.join(jobdir, "log"))
    index.refresh()                       # takes in what the runner wrote since
    for number, text in index.read(first=0, count=100): ...
"""
import os
from array import array

__all__ = ["LogIndex", "tail_lines"]

_EVERY = 256
_CHUNK = 1 << 20


class LogIndex:
    def __init__(self, path):
        self.path = path
        self.lines = 0           # complete lines seen
        self._end = 0            # byte offset just past the last complete line
        self._marks = array("q")  # _marks[i]: offset of line i * _EVERY

    def refresh(self):
        """Counts the complete lines written since the last call; returns how many."""
        try:
            size = os.path.getsize(self.path)
        except OSError:
            return 0
        if size <= self._end:
            return 0
        before = self.lines
        line_start = pos = self._end
        with open(self.path, "rb") as f:
            f.seek(pos)
            while pos < size:
                chunk = f.read(min(_CHUNK, size - pos))
                if not chunk:
                    break
                i = 0
                while True:
                    nl = chunk.find(b"\n", i)
                    if nl < 0:
                        break
                    if self.lines % _EVERY == 0:
                        self._marks.append(line_start)
                    self.lines += 1
                    line_start = pos + nl + 1
                    i = nl + 1
                pos += len(chunk)
        self._end = line_start  # a partial last line waits for its newline
        return self.lines - before

    def read(self, first=0, count=1000):
        """Up to ``count`` (number, text) pairs from line ``first`` on (complete lines)."""
        first = max(0, first)
        if first >= self.lines or count <= 0:
            return []
        mark = first // _EVERY
        out = []
        with open(self.path, "rb") as f:
            f.seek(self._marks[mark])
            number = mark * _EVERY
            while number < self.lines and len(out) < count:
                raw = f.readline()
                if not raw.endswith(b"\n"):
                    break
                if number >= first:
                    out.append((number, raw[:-1].decode("utf-8", errors="replace")))
                number += 1
        return out


def tail_lines(path, count=30, max_bytes=64 << 10):
    """The last ``count`` lines of the file at ``path`` (read from its last max_bytes)."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - max_bytes))
            data = f.read()
    except OSError:
        return []
    lines = data.decode("utf-8", errors="replace").splitlines()
    if size > max_bytes and lines:
        lines = lines[1:]  # the first may be cut
    return lines[-count:]
