"""The per-epoch progress line of Model.fit / evaluate / predict.

    bar = ProgressBar(num=938, verbose=2)
    bar.update(10, [("loss", 0.52), ("acc", 0.81)])
    # step  10/938 - loss: 0.5200 - acc: 0.8100 - 3s elapsed - ETA: 4:35 - 296ms/step

verbose 1 redraws one bar in place on a terminal (a new line per update elsewhere);
verbose 2 (and 3) prints one line per update. verbose 0 prints nothing.
"""
import sys
import time

import numpy as np

__all__ = ["ProgressBar"]


def format_seconds(seconds):
    """'42s', '3:07' or '1:02:03'."""
    seconds = int(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"
    if seconds >= 60:
        return f"{seconds // 60}:{seconds % 60:02d}"
    return f"{seconds}s"


def _format_number(value):
    if isinstance(value, np.ndarray) and value.size == 1:
        value = value.item()
    if isinstance(value, (float, np.floating)):
        return f"{value:.4f}" if abs(value) > 1e-3 else f"{value:.4e}"
    return str(value)


def format_values(values):
    """' - loss: 0.5200 - acc: 0.8100' for [(name, value or list of values), ...]."""
    text = ""
    for name, value in values:
        items = value if isinstance(value, (list, tuple)) else [value]
        text += f" - {name}: " + " ".join(_format_number(v) for v in items)
    return text


def _step_time(seconds_per_step, unit):
    if seconds_per_step >= 1 or seconds_per_step == 0:
        return f"{seconds_per_step:.0f}s/{unit}"
    if seconds_per_step >= 1e-3:
        return f"{seconds_per_step * 1e3:.0f}ms/{unit}"
    return f"{seconds_per_step * 1e6:.0f}us/{unit}"


class ProgressBar:
    """Prints progress through ``num`` steps (None: unknown): the step count, the values
    passed to update, the time elapsed, the time left (ETA) and the mean time per step."""

    def __init__(self, num=None, width=30, verbose=1, start=True, file=None, name="step"):
        if num is not None and (not isinstance(num, int) or num <= 0):
            raise ValueError(f"ProgressBar: num must be None or a positive int, got {num!r}")
        self._num = num
        self._width = width
        self._verbose = verbose
        self.file = file if file is not None else sys.stdout
        self.name = name
        self._shown_width = 0
        self._start = time.time() if start else None
        isatty = getattr(self.file, "isatty", None)
        self._redraw = bool(isatty and isatty())

    def start(self):
        """Restarts the clock."""
        self.file.flush()
        self._start = time.time()

    def _count(self, current):
        if self._num is None:
            return f"{self.name} {current:3d}"
        digits = len(str(self._num))
        return f"{self.name} {current:{digits}d}/{self._num}"

    def _bar(self, current):
        if self._num is None:
            return ""
        filled = min(self._width, int(self._width * current / self._num))
        head = ">" if 0 < filled and current < self._num else ("=" if filled else "")
        return " [" + "=" * max(filled - 1, 0) + head + "." * (self._width - filled) + "]"

    def _times(self, current, elapsed):
        per_step = elapsed / current if current else 0.0
        text = f" - {format_seconds(elapsed)} elapsed"
        if self._num is not None and current < self._num:
            text += f" - ETA: {format_seconds(per_step * (self._num - current))}"
        return text + " - " + _step_time(per_step, self.name)

    def update(self, current_num, values=()):
        """Shows step ``current_num`` (1-based) with ``values``: [(name, value), ...]."""
        if not self._verbose:
            return
        if self._start is None:
            self._start = time.time()
        elapsed = time.time() - self._start
        line = self._count(current_num)
        if self._verbose == 1:
            line += self._bar(current_num)
        line += format_values(values) + self._times(current_num, elapsed)
        done = self._num is None or current_num >= self._num
        if self._verbose == 1 and self._redraw:
            pad = " " * max(self._shown_width - len(line), 0)
            self._shown_width = len(line)
            self.file.write("\r" + line + pad + ("\n" if done else ""))
        else:
            self.file.write(line + "\n")
        self.file.flush()
