"""Shows a process's log on the launcher's output as it grows."""
import os
import sys
import time

__all__ = ["echo_log"]


def echo_log(path, stop):
    """Copies the file at ``path`` (once it exists) to stdout as it grows, until the event
    ``stop`` is set and the file is read to its end."""
    while not os.path.exists(path) and not stop.is_set():
        time.sleep(0.05)
    if not os.path.exists(path):
        return
    with open(path, "rb") as f:
        while True:
            chunk = f.read(65536)
            if chunk:
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()
            elif stop.is_set():
                return
            else:
                time.sleep(0.05)
