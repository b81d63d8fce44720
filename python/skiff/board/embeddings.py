"""Embeddings of a log directory in TensorBoard's projector layout (what torch's
SummaryWriter.add_embedding and skiff's LogWriter write): a ``projector_config.pbtxt``
in a run folder lists ``embeddings { tensor_name tensor_path metadata_path }`` entries,
each tensor a ``tensors.tsv`` (one row of tab-separated numbers per point) with an
optional ``metadata.tsv`` (one label per line; with several columns the first line is
the header). Points are projected to 2-D or 3-D by PCA (numpy SVD) or exact t-SNE
(numpy; on more than TSNE_MAX_POINTS points, a fixed random sample of them).

    store = Embeddings(logdir)                   # logdir: a board LogDir
    store.list()                                 # [{"run", "tag", "shape", "has_metadata"}]
    store.projection(".", "default:00000", "tsne", 2)["points"]   # [n, 2] in [-1, 1]
"""
import collections
import os
import re
import threading

import numpy as np

from .tsne import tsne

__all__ = ["Embeddings", "parse_projector_config", "pca", "tsne", "TSNE_MAX_POINTS"]

TSNE_MAX_POINTS = 2000
_TOKEN = re.compile(r'(?:(#[^\n]*)|([A-Za-z_][\w.]*)\s*(:?)\s*(\{)?|(\})|'
                    r'"((?:[^"\\]|\\.)*)"|([^\s{}"#]+))', re.S)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\"}


def _unescape(text):
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), text)


def parse_projector_config(text):
    """The ``embeddings`` entries of a projector_config.pbtxt (protobuf text format) as
    dicts of field -> value (repeated fields, like tensor_shape, -> lists)."""
    stack = [{}]
    key = None
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"projector config: cannot parse near {text[pos:pos + 30]!r}")
        pos = m.end()
        comment, name, _, brace, close, string, bare = m.groups()
        if comment is not None:
            continue
        if key is None and close:
            if len(stack) == 1:
                raise ValueError("projector config: unbalanced '}'")
            stack.pop()
        elif key is None and name is not None and brace:
            child = {}
            stack[-1].setdefault(name, []).append(child)
            stack.append(child)
        elif key is None and name is not None:
            key = name
        elif key is not None and not brace and not close:
            value = _unescape(string) if string is not None else (name or bare)
            stack[-1].setdefault(key, []).append(value)
            key = None
        else:
            raise ValueError(f"projector config: unexpected {m.group(0).strip()!r}")
    if len(stack) != 1:
        raise ValueError("projector config: unbalanced '{'")
    entries = []
    for e in stack[0].get("embeddings", []):
        entries.append({k: (v if k == "tensor_shape" else v[-1]) for k, v in e.items()})
    return entries


def pca(x, dims):
    """The first ``dims`` principal-component coordinates of the rows of ``x`` (zeros
    where x has fewer dimensions); each axis's sign fixed so its largest loading is > 0."""
    x = np.asarray(x, np.float64)
    x = x - x.mean(axis=0)
    _, s, vt = np.linalg.svd(x, full_matrices=False)
    k = min(dims, vt.shape[0])
    comps = vt[:k]
    signs = np.sign(comps[np.arange(k), np.abs(comps).argmax(axis=1)])
    out = np.zeros((x.shape[0], dims))
    out[:, :k] = x @ (comps * signs[:, None]).T
    return out


def _normalized(points):
    """Points centred, scaled into [-1, 1] and rounded to 5 decimals (compact JSON)."""
    points = points - points.mean(axis=0)
    scale = np.abs(points).max() if points.size else 0.0
    return np.round(points / scale if scale > 0 else points, 5)


def _read_tensor(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    lines = text.strip("\n").split("\n")
    if not lines or not lines[0].strip():
        raise ValueError("tensors.tsv is empty")
    cols = len(lines[0].split("\t"))
    values = np.array(text.split(), dtype=np.float64)
    if values.size != cols * len(lines):
        raise ValueError(f"tensors.tsv: {len(lines)} rows of {cols} columns expected, "
                         f"{values.size} numbers found")
    return values.reshape(len(lines), cols)


def _read_metadata(path):
    with open(path, encoding="utf-8") as f:
        rows = [line.split("\t") for line in f.read().rstrip("\n").split("\n")]
    if rows and len(rows[0]) > 1:
        return rows[0], rows[1:]
    return None, rows


class _FileCache:
    """Values computed from files, recomputed when a file's size or mtime changes."""

    def __init__(self, size):
        self._items = collections.OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def get(self, key, paths, compute):
        stamp = tuple((os.stat(p).st_mtime_ns, os.stat(p).st_size) if p else None
                      for p in paths)
        with self._lock:
            hit = self._items.get(key)
            if hit is not None and hit[0] == stamp:
                self._items.move_to_end(key)
                return hit[1]
        value = compute()
        with self._lock:
            self._items[key] = (stamp, value)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
        return value


class Embeddings:
    """The embeddings listed by the projector configs of a LogDir, their files read
    only where they resolve inside the logdir."""

    def __init__(self, logdir):
        self._logdir = logdir
        self._files = _FileCache(8)
        self._projections = _FileCache(16)
        self._lock = threading.Lock()
        self._busy = {}

    def _entries(self):
        entries = {}
        for run, config in sorted(self._logdir.projectors().items()):
            try:
                parsed = self._files.get(("config", config), [config],
                                         lambda: parse_projector_config(_text(config)))
            except (OSError, ValueError, UnicodeDecodeError) as e:
                self._logdir.warn(run, f"{os.path.basename(config)}: {e}")
                continue
            folder = os.path.dirname(config)
            for e in parsed:
                tag, tensor = e.get("tensor_name"), e.get("tensor_path")
                if not tag or not tensor:
                    continue
                tensor_path = self._logdir.resolve(os.path.join(folder, tensor))
                meta = e.get("metadata_path")
                meta_path = self._logdir.resolve(os.path.join(folder, meta)) if meta else None
                if not _is_file(tensor_path) or (meta and not _is_file(meta_path)):
                    self._logdir.warn(run, f"embedding {tag}: its files are missing or lead "
                                           f"outside the logdir")
                    continue
                entries[(run, tag)] = (tensor_path, meta_path)
        return entries

    def list(self):
        """[{"run", "tag", "shape": [n, d], "has_metadata"}] for every readable embedding."""
        out = []
        for (run, tag), (tensor, meta) in self._entries().items():
            try:
                shape = list(self._tensor(tensor).shape)
            except (OSError, ValueError, UnicodeDecodeError) as e:
                self._logdir.warn(run, f"embedding {tag}: {e}")
                continue
            out.append({"run": run, "tag": tag, "shape": shape, "has_metadata": bool(meta)})
        return out

    def _tensor(self, path):
        return self._files.get(("tensor", path), [path], lambda: _read_tensor(path))

    def projection(self, run, tag, method, dims):
        """{"points": [n, dims] in [-1, 1], "labels": list or None, "columns",
        "total", and for a sampled t-SNE "indices" and "note"}. Raises KeyError for an
        unknown embedding, ValueError for a bad method or dims."""
        if method not in ("pca", "tsne") or dims not in (2, 3):
            raise ValueError("method is pca or tsne, dims 2 or 3")
        tensor, meta = self._entries()[(run, tag)]
        key = (run, tag, method, dims)
        with self._lock:
            busy = self._busy.setdefault(key, threading.Lock())
        with busy:  # one computation per projection; later requests get the cached one
            return self._projections.get(key, [tensor, meta],
                                         lambda: self._project(tensor, meta, method, dims))

    def _project(self, tensor, meta, method, dims):
        x = self._tensor(tensor)
        n = x.shape[0]
        out = {"total": n, "columns": None, "labels": None}
        rows = None
        if meta:
            header, rows = _read_metadata(meta)
            out["columns"] = header
            if len(rows) != n:
                out["note"] = f"metadata has {len(rows)} rows for {n} points; labels dropped"
                rows = None
        idx = np.arange(n)
        if method == "tsne" and n > TSNE_MAX_POINTS:
            idx = np.sort(np.random.default_rng(0).choice(n, TSNE_MAX_POINTS, replace=False))
            out["indices"] = idx
            out["note"] = (f"t-SNE of a random sample of {TSNE_MAX_POINTS} of the {n} points "
                           f"(exact t-SNE is quadratic in the number of points)")
        points = pca(x, dims) if method == "pca" else tsne(x[idx], dims)
        out["points"] = _normalized(points)
        if rows is not None:
            out["labels"] = [rows[i][0] for i in idx]
            if out["columns"]:
                out["metadata"] = [rows[i] for i in idx]
        return out


def _is_file(path):
    return path is not None and os.path.isfile(path)


def _text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()
