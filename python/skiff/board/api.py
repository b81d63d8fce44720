"""The board's JSON API as plain functions of (BoardState, query) -> data or Response,
run by the server on worker threads (reading event files blocks). Runs, programs and
embeddings are looked up by the names discovery gave them, so no path is ever built
from a request; an unknown name is a 404.

    state = BoardState("logs")
    scalars(state, {"run": ".", "tag": "loss", "max_points": "500"})
    # {"run", "tag", "total", "step": [...], "wall_time": [...], "value": [...]}
"""
import json
import math
import os
import re

import numpy as np
from aiohttp import web

from .. import _C
from .embeddings import Embeddings
from .logdir import LogDir
from .program_view import program_json

__all__ = ["ApiError", "BoardState", "ENDPOINTS"]

DEFAULT_MAX_POINTS = 1000
_KINDS = ("scalars", "histograms", "images", "audio", "text", "pr_curves")


class ApiError(Exception):
    """An error answered as {"error": message} with an HTTP status (400 or 404)."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


class BoardState:
    """What the API serves: the LogDir (runs reloaded at most every ``reload_interval``
    seconds) and its embeddings."""

    def __init__(self, logdir, reload_interval=1.0):
        self.logdir = LogDir(logdir, reload_interval=reload_interval,
                             scan_interval=reload_interval)
        self.embeddings = Embeddings(self.logdir)

    def fresh_run(self, name):
        """The run called ``name``, reloaded if due; ApiError 404 when there is none."""
        run = self.logdir.run(name)
        if run is None:
            raise ApiError(404, f"no run {_short(name)!r}")
        run.refresh(self.logdir.reload_interval)
        return run


def _short(text, limit=200):
    return text if len(text) <= limit else text[:limit] + "..."


def _param(query, name, default=None):
    value = query.get(name, default)
    if value is None:
        raise ApiError(400, f"missing query parameter {name!r}")
    return value


def _int_param(query, name, default, low, high):
    raw = query.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ApiError(400, f"{name} must be an integer, got {_short(raw)!r}") from None
    if not low <= value <= high:
        raise ApiError(400, f"{name} must lie in [{low}, {high}], got {value}")
    return value


def _run_tag(state, query, kind):
    """(run, tag) named by the query, after checking the run holds ``tag`` of ``kind``."""
    run = state.fresh_run(_param(query, "run"))
    tag = _param(query, "tag")
    if tag not in run.query(lambda log: log.tags()).get(kind, []):
        raise ApiError(404, f"run {_short(run.name)!r} has no {kind} tag {_short(tag)!r}")
    return run, tag


def clean(value):
    """``value`` as JSON data: numpy arrays and scalars as lists and numbers, non-finite
    floats as null."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            out = value.astype(object)
            out[~np.isfinite(value)] = None
            return out.tolist()
        return value.tolist()
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, dict):
        return {k: clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [clean(v) for v in value]
    return value


def _number_strings(array):
    """The numbers of a 1-D array as their shortest round-trip text; "null" for NaN/inf."""
    text = array.astype(str).tolist()
    if array.dtype.kind == "f":
        for i in np.flatnonzero(~np.isfinite(array)):
            text[i] = "null"
    return text


def _json_text_response(text, filename=None):
    headers = {"Content-Disposition": f'attachment; filename="{filename}"'} if filename else None
    return web.Response(text=text, content_type="application/json", headers=headers)


def _filename(run, tag, ext):
    return (re.sub(r"[^A-Za-z0-9._-]+", "_", f"{run}_{tag}").strip("._")[:100] or "scalars") + ext


def scalars(state, query):
    """Downsampled points (≤ max_points, LTTB keeping extremes) or, with format=csv|json,
    every point as a download."""
    run, tag = _run_tag(state, query, "scalars")
    fmt = query.get("format")
    max_points = _int_param(query, "max_points", DEFAULT_MAX_POINTS, 2, 10_000_000)
    x = query.get("x", "step")
    if x not in ("step", "wall_time", "relative"):
        raise ApiError(400, "x is step, wall_time or relative")
    if fmt not in (None, "csv", "json"):
        raise ApiError(400, "format is csv or json")
    steps, wall_times, values = run.query(lambda log: log.scalars(tag))
    total = len(steps)
    if fmt is None and total > max_points:
        key = steps if x == "step" else np.round(wall_times * 1000.0).astype(np.int64)
        idx = _C.downsample(key, values, max_points)
        steps, wall_times, values = steps[idx], wall_times[idx], values[idx]
    step_s, wall_s, value_s = (_number_strings(a) for a in (steps, wall_times, values))
    if fmt == "csv":
        for i in np.flatnonzero(~np.isfinite(values)):
            value_s[i] = str(values[i])
        body = "wall_time,step,value\n" + "".join(
            f"{w},{s},{v}\n" for w, s, v in zip(wall_s, step_s, value_s))
        return web.Response(text=body, content_type="text/csv", headers={
            "Content-Disposition": f'attachment; filename="{_filename(run.name, tag, ".csv")}"'})
    head = json.dumps({"run": run.name, "tag": tag, "total": total})[:-1]
    text = (f'{head}, "step": [{",".join(step_s)}], "wall_time": [{",".join(wall_s)}], '
            f'"value": [{",".join(value_s)}]}}')
    return _json_text_response(text, _filename(run.name, tag, ".json") if fmt else None)


def histograms(state, query):
    """[{"step", "wall_time", "min", "max", "num", "sum", "sum_squares", "limits", "counts"}]."""
    run, tag = _run_tag(state, query, "histograms")
    return clean(run.query(lambda log: log.histograms(tag)))


def images(state, query):
    """[{"step", "wall_time", "width", "height", "content_type", "index"}] (index: see image)."""
    run, tag = _run_tag(state, query, "images")
    items = run.query(lambda log: log.images(tag))
    return clean([dict(item, index=i) for i, item in enumerate(items)])


def _media(state, query, kind, blob):
    """(bytes, content type or "") of item ``index`` of an images or audio tag, listed and
    read under one hold of the run (a reload may replace a tag's items)."""
    run, tag = _run_tag(state, query, kind)
    index = _int_param(query, "index", None, 0, 1 << 31)
    if index is None:
        raise ApiError(400, "missing query parameter 'index'")

    def read(log):
        items = getattr(log, kind)(tag)
        if index >= len(items):
            raise ApiError(404, f"{kind} tag {_short(tag)!r} has {len(items)} items, "
                                f"no index {index}")
        return getattr(log, blob)(tag, index), items[index].get("content_type") or ""
    return run.query(read)


def _image_type(data):
    for magic, kind in ((b"\x89PNG", "image/png"), (b"\xff\xd8", "image/jpeg"),
                        (b"GIF8", "image/gif")):
        if data.startswith(magic):
            return kind
    return "application/octet-stream"


def image(state, query):
    """The bytes of image ``index`` of a tag (image/png for what skiff writes)."""
    data, content_type = _media(state, query, "images", "image")
    return web.Response(body=data, content_type=content_type or _image_type(data))


def audio(state, query):
    """[{"step", "wall_time", "sample_rate", "frames", "content_type", "index"}]."""
    run, tag = _run_tag(state, query, "audio")
    items = run.query(lambda log: log.audio(tag))
    return clean([dict(item, index=i) for i, item in enumerate(items)])


def audio_clip(state, query):
    """The bytes of clip ``index`` of a tag (audio/wav for what skiff writes)."""
    data, content_type = _media(state, query, "audio", "audio_clip")
    return web.Response(body=data, content_type=content_type or "audio/wav")


def text(state, query):
    """[{"step", "wall_time", "text"}]."""
    run, tag = _run_tag(state, query, "text")
    return clean(run.query(lambda log: log.texts(tag)))


def pr_curves(state, query):
    """[{"step", "wall_time", "thresholds", "tp", "fp", "tn", "fn", "precision", "recall"}]."""
    run, tag = _run_tag(state, query, "pr_curves")
    return clean(run.query(lambda log: log.pr_curves(tag)))


def runs(state, query):
    """[{"name", "hparams": bool}] for every run, sorted by name."""
    out = []
    for name, run in sorted(state.logdir.runs().items()):
        run.refresh(state.logdir.reload_interval)
        out.append({"name": name, "hparams": run.query(lambda log: log.hparams()) is not None})
    return out


def tags(state, query):
    """{run: {kind: [tags]}}, kinds: scalars, histograms, images, audio, text, pr_curves."""
    out = {}
    for name, run in sorted(state.logdir.runs().items()):
        run.refresh(state.logdir.reload_interval)
        found = run.query(lambda log: log.tags())
        out[name] = {kind: list(found.get(kind, [])) for kind in _KINDS}
    return out


def _last_value(run, tag):
    def read(log):
        if tag not in log.tags().get("scalars", []):
            return None
        values = log.scalars(tag)[2]
        return clean(float(values[-1])) if len(values) else None
    return run.query(read)


def hparams(state, query):
    """Per run with hparams: its values and each metric's last logged value (looked for
    in the run, then in the runs below it, as torch's add_hparams writes them), or null."""
    all_runs = sorted(state.logdir.runs().items())
    out = []
    for name, run in all_runs:
        run.refresh(state.logdir.reload_interval)
        info = run.query(lambda log: log.hparams())
        if info is None:
            continue
        prefix = "" if name == "." else name + "/"
        family = [run] + [r for n, r in all_runs if n != name and n.startswith(prefix)]
        metrics = {}
        for metric in info.get("metrics", []):
            metrics[metric] = None
            for r in family:
                r.refresh(state.logdir.reload_interval)
                value = _last_value(r, metric)
                if value is not None:
                    metrics[metric] = value
                    break
        out.append({"run": name, "hparams": clean(dict(info.get("hparams", {}))),
                    "metrics": metrics})
    return out


def embeddings(state, query):
    """[{"run", "tag", "shape", "has_metadata"}] of every readable embedding."""
    return state.embeddings.list()


def embedding(state, query):
    """One embedding projected by ``method`` (pca or tsne) to ``dims`` (2 or 3)."""
    method = query.get("method", "pca")
    dims = _int_param(query, "dims", 2, 2, 3)
    run, tag = _param(query, "run"), _param(query, "tag")
    try:
        result = state.embeddings.projection(run, tag, method, dims)
    except KeyError:
        raise ApiError(404, f"no embedding {_short(tag)!r} in run {_short(run)!r}") from None
    except ValueError as e:
        raise ApiError(400, str(e)) from None
    return dict(clean(result), run=run, tag=tag, method=method, dims=dims)


def programs(state, query):
    """[{"run", "name"}] of every .skmodel file under the logdir."""
    return [{"run": run, "name": name} for run, name in sorted(state.logdir.programs())]


def program(state, query):
    """Program ``name`` of ``run`` as program_view JSON; 400 for an unreadable file."""
    key = (_param(query, "run"), _param(query, "name"))
    path = state.logdir.programs().get(key)
    real = state.logdir.resolve(path) if path else None
    if real is None or not os.path.isfile(real):
        raise ApiError(404, f"no program {_short(key[1])!r} in run {_short(key[0])!r}")
    try:
        return program_json(real)
    except (RuntimeError, OSError) as e:
        raise ApiError(400, f"program {_short(key[1])!r} cannot be read: {e}") from None


def warnings(state, query):
    """Recent reader and server warnings, [{"run", "message"}]."""
    return state.logdir.warnings()


# path under /api/ -> function(state, query)
ENDPOINTS = {
    "runs": runs, "tags": tags, "scalars": scalars, "histograms": histograms,
    "images": images, "image": image, "audio": audio, "audio_clip": audio_clip,
    "text": text, "pr_curves": pr_curves, "hparams": hparams, "embeddings": embeddings,
    "embedding": embedding, "programs": programs, "program": program, "warnings": warnings,
}
