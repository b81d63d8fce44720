"""skiff board's server over real logs written through skiff._C.EventLogWriter (and torch
for the projector layout): runs and tags, scalars against the reader's own points and
downsampling, every kind of record, embeddings (PCA against numpy, t-SNE quality and
gradient), the program view, live reloading, broken and vanishing files, paths leading
out of the logdir (never opened: they are FIFOs a reader would block on), a huge tag,
the command line and a million points downsampled."""
import errno
import io
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
import types
import urllib.error
import urllib.parse
import urllib.request
import wave

import numpy as np
import pytest

import skiff
from skiff import _C
from skiff.board import embeddings as emb_module
from skiff.board import logdir as logdir_module
from skiff.board import tsne as tsne_module
from skiff.board.server import plotly_js_path, start_in_thread

WALL0 = 1_700_000_000.0


@pytest.fixture
def board():
    """start(logdir, **options) -> url of a server on a free port; all stopped after the test."""
    stops = []

    def start(logdir, **options):
        url, stop = start_in_thread(str(logdir), port=0, **options)
        stops.append(stop)
        return url

    yield start
    for stop in stops:
        stop()


def _fetch(url, path, params=None, timeout=30):
    """(status, content type, body) of GET url+path?params (path sent as given)."""
    full = url + path + ("?" + urllib.parse.urlencode(params) if params else "")
    try:
        with urllib.request.urlopen(full, timeout=timeout) as r:
            return r.status, r.headers.get_content_type(), r.read(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get_content_type(), e.read(), e.headers


def _json(url, path, expect=200, **params):
    status, ctype, body, _ = _fetch(url, path, params or None)
    assert status == expect, (path, params, status, body[:300])
    assert ctype == "application/json"
    return json.loads(body)


def _write_scalars(folder, tag, values, first_step=0, suffix=""):
    os.makedirs(folder, exist_ok=True)
    w = _C.EventLogWriter(str(folder), filename_suffix=suffix)
    for i, v in enumerate(values):
        w.add_scalar(tag, float(v), first_step + i, WALL0 + first_step + i)
    w.close()
    return w.path


def _reader(folder):
    log = _C.RunLog(str(folder))
    log.reload()
    return log


def _wait_for(fn, timeout=10.0):
    end = time.monotonic() + timeout
    while True:
        value = fn()
        if value or time.monotonic() > end:
            return value
        time.sleep(0.05)


# ---- runs, tags, scalars -------------------------------------------------------------

def test_runs_are_the_folders_holding_event_files(tmp_path, board):
    _write_scalars(tmp_path, "root/loss", [1.0, 2.0])
    _write_scalars(tmp_path / "a", "loss", [3.0])
    _write_scalars(tmp_path / "b" / "c", "acc", [0.5, 0.6, 0.7])
    (tmp_path / "d").mkdir()
    (tmp_path / "e").mkdir()
    (tmp_path / "e" / "notes.txt").write_text("no events here")
    url = board(tmp_path)
    assert _json(url, "api/runs") == [{"name": n, "hparams": False} for n in (".", "a", "b/c")]
    tags = _json(url, "api/tags")
    assert sorted(tags) == [".", "a", "b/c"]
    for name, folder in ((".", tmp_path), ("a", tmp_path / "a"), ("b/c", tmp_path / "b" / "c")):
        assert tags[name] == _reader(folder).tags()
    assert tags["b/c"]["scalars"] == ["acc"]


def _noisy_series(n, seed=0):
    rng = np.random.default_rng(seed)
    values = np.sin(np.arange(n) / 50.0) + rng.normal(0, 0.1, n)
    values[n // 3] = 9.0   # a spike and a dip downsampling must keep
    values[2 * n // 3] = -7.0
    return values.astype(np.float32)


def test_scalars_are_the_readers_points_downsampled(tmp_path, board):
    values = _noisy_series(5000)
    _write_scalars(tmp_path, "loss", values)
    url = board(tmp_path)
    got = _json(url, "api/scalars", run=".", tag="loss", max_points=300)
    steps, walls, vals = _reader(tmp_path).scalars("loss")
    idx = _C.downsample(steps, vals, 300)
    assert got["run"] == "." and got["tag"] == "loss" and got["total"] == 5000
    assert got["step"] == steps[idx].tolist() and len(got["step"]) <= 300
    assert got["wall_time"] == walls[idx].tolist()
    np.testing.assert_array_equal(np.array(got["value"], np.float32), vals[idx])
    # Against what was written: every point is a written one, extremes and ends are kept.
    np.testing.assert_array_equal(np.array(got["value"], np.float32), values[got["step"]])
    assert {0, 4999, 5000 // 3, 2 * 5000 // 3} <= set(got["step"])
    default = _json(url, "api/scalars", run=".", tag="loss")
    assert 300 < len(default["step"]) <= 1000
    by_time = _json(url, "api/scalars", run=".", tag="loss", max_points=100, x="wall_time")
    assert len(by_time["step"]) <= 100 and by_time["total"] == 5000


def test_scalar_downloads_hold_every_point(tmp_path, board):
    values = _noisy_series(2000)
    values[7] = np.nan
    values[8] = np.inf
    _write_scalars(tmp_path / "run", "a/b", values)
    url = board(tmp_path)
    status, ctype, body, headers = _fetch(url, "api/scalars",
                                          {"run": "run", "tag": "a/b", "format": "csv"})
    assert status == 200 and ctype == "text/csv"
    assert "attachment" in headers["Content-Disposition"]
    lines = body.decode().strip().split("\n")
    assert lines[0] == "wall_time,step,value" and len(lines) == 2001
    rows = [line.split(",") for line in lines[1:]]
    assert [int(r[1]) for r in rows] == list(range(2000))
    assert [float(r[0]) for r in rows] == [WALL0 + i for i in range(2000)]
    np.testing.assert_array_equal(np.array([r[2] for r in rows], np.float32), values)
    got = _json(url, "api/scalars", run="run", tag="a/b", format="json")
    assert got["total"] == 2000 and got["step"] == list(range(2000))
    assert got["value"][7] is None and got["value"][8] is None
    finite = np.isfinite(values)
    np.testing.assert_array_equal(
        np.array([v for v in got["value"] if v is not None], np.float32), values[finite])


def test_bad_requests_get_json_errors(tmp_path, board):
    _write_scalars(tmp_path, "loss", [1.0, 2.0, 3.0])
    url = board(tmp_path)
    assert "error" in _json(url, "api/scalars", expect=400, tag="loss")
    assert "error" in _json(url, "api/scalars", expect=400, run=".", tag="loss", max_points="x")
    assert "error" in _json(url, "api/scalars", expect=400, run=".", tag="loss", max_points=1)
    assert "error" in _json(url, "api/scalars", expect=400, run=".", tag="loss", format="xml")
    assert "error" in _json(url, "api/scalars", expect=404, run=".", tag="nope")
    assert "error" in _json(url, "api/histograms", expect=404, run=".", tag="loss")
    assert "error" in _json(url, "api/image", expect=404, run=".", tag="loss", index=0)
    assert "error" in _json(url, "api/no_such_endpoint", expect=404)
    assert _json(url, "api/scalars", run=".", tag="loss")["total"] == 3


# ---- live reloading --------------------------------------------------------------------

def test_new_points_show_up_while_serving(tmp_path, board):
    w = _C.EventLogWriter(str(tmp_path))
    for i in range(100):
        w.add_scalar("loss", float(i), i, WALL0 + i)
    w.flush()
    url = board(tmp_path, reload_interval=0.2)
    assert _json(url, "api/scalars", run=".", tag="loss")["total"] == 100
    for i in range(100, 250):
        w.add_scalar("loss", float(i), i, WALL0 + i)
    w.add_scalar("late/tag", 1.0, 0, WALL0)
    w.close()
    _write_scalars(tmp_path / "new_run", "x", [1.0])
    assert _wait_for(lambda: _json(url, "api/scalars", run=".", tag="loss")["total"] == 250)
    assert "late/tag" in _json(url, "api/tags")["."]["scalars"]
    assert _wait_for(lambda: "new_run" in [r["name"] for r in _json(url, "api/runs")])


def test_a_run_reloads_at_most_once_per_interval(tmp_path, monkeypatch):
    _write_scalars(tmp_path, "loss", [1.0])
    calls = []

    class CountingRunLog:
        def __init__(self, path):
            self._log = _C.RunLog(path)

        def reload(self):
            calls.append(time.monotonic())
            return self._log.reload()

        def __getattr__(self, name):
            return getattr(self._log, name)

    monkeypatch.setattr(logdir_module, "_C", types.SimpleNamespace(RunLog=CountingRunLog))
    logdir = logdir_module.LogDir(str(tmp_path), reload_interval=1.0)
    run = logdir.run(".")
    start = time.monotonic()
    while time.monotonic() - start < 0.5:
        run.refresh(1.0)
    assert len(calls) == 1
    time.sleep(max(0.0, calls[0] + 1.05 - time.monotonic()))
    run.refresh(1.0)
    run.refresh(1.0)
    assert len(calls) == 2 and calls[1] - calls[0] >= 1.0


# ---- histograms, images, audio, text, PR curves, hparams -------------------------------

def test_every_kind_of_record_is_served(tmp_path, board):
    from PIL import Image
    rng = np.random.default_rng(3)
    w = _C.EventLogWriter(str(tmp_path / "r"))
    hist_values = rng.normal(2.0, 3.0, 1000)
    w.add_histogram("weights", hist_values, 5, WALL0, 30)
    picture = rng.integers(0, 256, (6, 9, 3), dtype=np.uint8)
    w.add_image("sample", picture, 2, WALL0)
    clip = np.clip(rng.normal(0, 0.3, (800, 1)), -1, 1).astype(np.float32)
    w.add_audio("voice", clip, 8000, 3, WALL0)
    w.add_text("notes", "hello <b>board</b>", 4, WALL0)
    labels = (rng.random(200) < 0.4).astype(np.float64)
    preds = np.clip(labels * 0.5 + rng.random(200) * 0.5, 0, 1)
    w.add_pr_curve("pr", labels, preds, 6, WALL0, 11, None)
    w.add_hparams({"lr": 0.01, "opt": "adam", "layers": 3}, ["final/acc", "never/logged"], WALL0)
    for i, acc in enumerate([0.5, 0.7, 0.9]):
        w.add_scalar("final/acc", acc, i, WALL0 + i)
    w.close()
    url = board(tmp_path)
    ref = _reader(tmp_path / "r")

    hist = _json(url, "api/histograms", run="r", tag="weights")
    assert len(hist) == 1 and hist[0]["step"] == 5
    assert sum(hist[0]["counts"]) == pytest.approx(1000) and hist[0]["num"] == 1000
    assert hist[0]["min"] == pytest.approx(hist_values.min())
    assert hist[0]["max"] == pytest.approx(hist_values.max())
    assert hist[0]["counts"] == ref.histograms("weights")[0]["counts"]

    images = _json(url, "api/images", run="r", tag="sample")
    assert [(i["step"], i["width"], i["height"], i["index"]) for i in images] == [(2, 9, 6, 0)]
    status, ctype, body, _ = _fetch(url, "api/image", {"run": "r", "tag": "sample", "index": 0})
    assert status == 200 and ctype == "image/png"
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(body)).convert("RGB")), picture)
    assert _fetch(url, "api/image", {"run": "r", "tag": "sample", "index": 1})[0] == 404

    clips = _json(url, "api/audio", run="r", tag="voice")
    assert len(clips) == 1 and clips[0]["step"] == 3 and clips[0]["sample_rate"] == 8000
    status, ctype, body, _ = _fetch(url, "api/audio_clip", {"run": "r", "tag": "voice", "index": 0})
    assert status == 200 and ctype == "audio/wav"
    with wave.open(io.BytesIO(body)) as f:
        assert f.getframerate() == 8000 and f.getnchannels() == 1
        pcm = np.frombuffer(f.readframes(f.getnframes()), "<i2")
    assert np.abs(pcm / 32767.0 - clip[:, 0]).max() < 2e-4

    assert _json(url, "api/text", run="r", tag="notes") == [
        {"step": 4, "wall_time": WALL0, "text": "hello <b>board</b>"}]

    curves = _json(url, "api/pr_curves", run="r", tag="pr")
    expect = ref.pr_curves("pr")[0]
    assert len(curves) == 1 and curves[0]["step"] == 6 and curves[0]["thresholds"] == 11
    for key in ("precision", "recall", "tp", "fp"):
        assert curves[0][key] == [None if np.isnan(v) else pytest.approx(v) for v in expect[key]]
    assert curves[0]["recall"][0] == pytest.approx(1.0)

    assert _json(url, "api/runs") == [{"name": "r", "hparams": True}]
    assert _json(url, "api/hparams") == [{
        "run": "r", "hparams": {"lr": 0.01, "opt": "adam", "layers": 3},
        "metrics": {"final/acc": pytest.approx(0.9), "never/logged": None}}]


# ---- embeddings --------------------------------------------------------------------------

def _pca_reference(x, dims):
    x = x - x.mean(axis=0)
    vals, vecs = np.linalg.eigh(x.T @ x)
    return x @ vecs[:, np.argsort(vals)[::-1][:dims]]


def test_embeddings_written_by_torch_and_by_skiff(tmp_path, board):
    from torch.utils.tensorboard import SummaryWriter
    from skiff.board import LogWriter
    rng = np.random.default_rng(0)
    torch_points = rng.normal(0, 1, (40, 6)) * np.array([5, 3, 2, 1, 0.5, 0.1])
    writer = SummaryWriter(str(tmp_path / "torch_run"))
    writer.add_embedding(torch_points, metadata=[f"p{i}" for i in range(40)], tag="feat")
    writer.close()
    ours = rng.normal(0, 1, (30, 4)) * np.array([4, 2, 1, 0.2])
    with LogWriter(str(tmp_path / "skiff_run")) as w:
        w.add_embeddings("vec", ours, metadata=[[f"n{i}", str(i % 2)] for i in range(30)],
                         metadata_header=["name", "parity"])
    url = board(tmp_path)
    listed = {(e["run"], e["tag"]): e for e in _json(url, "api/embeddings")}
    torch_key = ("torch_run", "feat:00000")
    assert listed[torch_key]["shape"] == [40, 6] and listed[torch_key]["has_metadata"]
    skiff_key = next(k for k in listed if k[0] == "skiff_run")
    assert listed[skiff_key]["shape"] == [30, 4]
    for (run, tag), points, dims in ((torch_key, torch_points, 3), (skiff_key, ours, 2)):
        got = _json(url, "api/embedding", run=run, tag=tag, method="pca", dims=dims)
        coords = np.array(got["points"])
        assert coords.shape == (len(points), dims) and np.abs(coords).max() <= 1.0
        ref = _pca_reference(points, dims)
        for k in range(dims):
            assert abs(np.corrcoef(coords[:, k], ref[:, k])[0, 1]) > 0.9999
    got = _json(url, "api/embedding", run="torch_run", tag="feat:00000", method="tsne", dims=2)
    assert got["labels"] == [f"p{i}" for i in range(40)] and len(got["points"]) == 40
    got = _json(url, "api/embedding", run=skiff_key[0], tag=skiff_key[1], method="pca")
    assert got["labels"] == [f"n{i}" for i in range(30)]
    assert got["columns"] == ["name", "parity"] and got["metadata"][3] == ["n3", "1"]
    assert _fetch(url, "api/embedding", {"run": "torch_run", "tag": "feat:00000",
                                         "method": "umap"})[0] == 400
    assert _fetch(url, "api/embedding", {"run": "torch_run", "tag": "nope"})[0] == 404


def _clusters(n, k=6, seed=1):
    """n points around k mutually orthogonal centres in 10-D: no 2-D linear map separates them."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    return np.eye(10)[:k][labels] * 10 + rng.normal(0, 1, (n, 10)), labels


def _knn_agreement(points, labels, k=5):
    d = ((points[:, None] - points[None]) ** 2).sum(-1)
    np.fill_diagonal(d, np.inf)
    return (labels[np.argsort(d, axis=1)[:, :k]] == labels[:, None]).mean()


def test_tsne_separates_clusters_that_pca_merges():
    x, labels = _clusters(300)
    y = tsne_module.tsne(x, 2)
    assert y.shape == (300, 2)
    flat = emb_module.pca(x, 2)
    assert _knn_agreement(y, labels) > 0.97
    assert _knn_agreement(flat, labels) < 0.9
    p = tsne_module.affinities(x, 30.0)
    assert p.sum() == pytest.approx(1.0) and np.allclose(p, p.T)
    scaled = flat / flat.std() * y.std()
    assert tsne_module.kl_divergence(p, y) < 0.6 * tsne_module.kl_divergence(p, scaled)
    y3 = tsne_module.tsne(x, 3)
    assert y3.shape == (300, 3) and _knn_agreement(y3, labels) > 0.97


def test_tsne_gradient_matches_finite_differences():
    rng = np.random.default_rng(2)
    x, _ = _clusters(25)
    p = tsne_module.affinities(x, 5.0)
    y = rng.normal(0, 1, (25, 2))
    grad = tsne_module.kl_gradient(p, y)
    eps = 1e-6
    for i, j in [(0, 0), (3, 1), (17, 0), (24, 1)]:
        plus, minus = y.copy(), y.copy()
        plus[i, j] += eps
        minus[i, j] -= eps
        kl = tsne_module.kl_divergence
        numeric = (kl(p, plus) - kl(p, minus)) / (2 * eps)
        assert grad[i, j] == pytest.approx(numeric, rel=1e-4, abs=1e-7)


def test_tsne_of_many_points_runs_on_a_noted_sample(tmp_path, board, monkeypatch):
    monkeypatch.setattr(emb_module, "TSNE_MAX_POINTS", 60)
    x, labels = _clusters(100)
    folder = tmp_path / "00000" / "big"
    folder.mkdir(parents=True)
    (folder / "tensors.tsv").write_text("".join("\t".join(map(str, r)) + "\n" for r in x))
    (folder / "metadata.tsv").write_text("".join(f"{v}\n" for v in labels))
    (tmp_path / "projector_config.pbtxt").write_text(
        'embeddings {\n  tensor_name: "big:00000"\n  tensor_path: "00000/big/tensors.tsv"\n'
        '  metadata_path: "00000/big/metadata.tsv"\n}\n')
    url = board(tmp_path)
    assert _json(url, "api/embeddings") == [
        {"run": ".", "tag": "big:00000", "shape": [100, 10], "has_metadata": True}]
    got = _json(url, "api/embedding", run=".", tag="big:00000", method="tsne", dims=2)
    assert got["total"] == 100 and len(got["points"]) == 60 and "60 of the 100" in got["note"]
    idx = got["indices"]
    assert len(set(idx)) == 60 and got["labels"] == [str(labels[i]) for i in idx]
    assert _knn_agreement(np.array(got["points"]), labels[idx]) > 0.9


# ---- programs ------------------------------------------------------------------------------

def _while_program_with_backward():
    import skiff.static as st
    skiff.enable_static()
    try:
        main, startup = st.Program(), st.Program()
        with st.program_guard(main, startup):
            x = st.data("x", [-1, 4])
            w = st.create_parameter([4, 3], "float32")
            n = skiff.full([1], 3, "int64")
            i = skiff.full([1], 0, "int64")
            h = skiff.matmul(x, w)
            i, h = st.nn.while_loop(lambda i, h: i < n, lambda i, h: [i + 1, skiff.tanh(h)], [i, h])
            loss = h.mean()
            st.append_backward(loss)
        return main.desc, loss.name, w.name
    finally:
        skiff.disable_static()


def test_program_view_marks_blocks_and_grad_ops(tmp_path, board):
    desc, loss, param = _while_program_with_backward()
    (tmp_path / "programs").mkdir()
    _C.save_program(desc, str(tmp_path / "programs" / "net.skmodel"))
    (tmp_path / "exp").mkdir()
    _C.save_program(desc, str(tmp_path / "exp" / "copy.skmodel"))
    (tmp_path / "exp" / "broken.skmodel").write_bytes(b"not a program")
    url = board(tmp_path)
    assert _json(url, "api/programs") == [{"run": ".", "name": "net"},
                                          {"run": "exp", "name": "broken"},
                                          {"run": "exp", "name": "copy"}]
    got = _json(url, "api/program", run=".", name="net")
    assert _json(url, "api/program", run="exp", name="copy") == got
    assert "error" in _json(url, "api/program", expect=400, run="exp", name="broken")
    blocks = got["blocks"]
    assert [b["idx"] for b in blocks] == list(range(desc.num_blocks))
    assert [b["parent"] for b in blocks] == [desc.parent_idx(b) for b in range(desc.num_blocks)]
    for b in blocks:
        assert [op["type"] for op in b["ops"]] == [desc.op(b["idx"], i).type
                                                   for i in range(desc.num_ops(b["idx"]))]
        assert sorted(b["vars"]) == sorted(desc.var_names(b["idx"]))
    ops0 = blocks[0]["ops"]
    # The backward pass appends after the op computing the loss.
    last_forward = next(i for i, op in enumerate(ops0) if op["outputs"].get("Out") == [loss])
    assert [op["grad"] for op in ops0] == [i > last_forward for i in range(len(ops0))]
    loop = next(op for op in ops0 if op["type"] == "while")
    loop_grad = next(op for op in ops0 if op["type"] == "while_grad")
    assert blocks[loop["sub_block"]]["parent"] == 0
    assert not any(op["grad"] for op in blocks[loop["sub_block"]]["ops"])
    assert all(op["grad"] for op in blocks[loop_grad["sub_block"]]["ops"])
    assert loop["attrs"]["sub_block"] == loop["sub_block"]
    assert loop["inputs"]["Condition"] and "X" in loop["inputs"]
    for b in blocks:
        for name, var in b["vars"].items():
            ref = desc.var(b["idx"], name)
            assert var == {"dtype": ref.dtype, "shape": list(ref.shape), "kind": ref.kind,
                           "persistable": ref.persistable, "stop_gradient": ref.stop_gradient}
    assert blocks[0]["vars"]["x"]["shape"] == [-1, 4]
    assert blocks[0]["vars"]["x"]["dtype"] == "float32"
    assert blocks[0]["vars"][param]["persistable"] is True


# ---- broken files, vanishing runs, paths out of the logdir, huge tags ---------------------

def _record_spans(data):
    """(start, length) of each TFRecord payload: u64 length, u32 crc, payload, u32 crc."""
    spans, at = [], 0
    while at + 12 <= len(data):
        (length,) = struct.unpack_from("<Q", data, at)
        spans.append((at + 12, length))
        at += 12 + length + 4
    return spans


def test_broken_event_files_warn_and_the_server_keeps_serving(tmp_path, board):
    values = np.arange(100, dtype=np.float32) * 0.5
    crc_file = _write_scalars(tmp_path / "crc", "loss", values)
    data = bytearray(open(crc_file, "rb").read())
    start, length = _record_spans(bytes(data))[40]
    data[start + length // 2] ^= 0xFF
    open(crc_file, "wb").write(bytes(data))
    cut_file = _write_scalars(tmp_path / "cut", "loss", values)
    data = open(cut_file, "rb").read()
    start, length = _record_spans(data)[-1]
    open(cut_file, "wb").write(data[:start + length // 2])
    url = board(tmp_path)
    crc = _json(url, "api/scalars", run="crc", tag="loss", format="json")
    assert crc["total"] == 99 and len(set(range(100)) - set(crc["step"])) == 1
    np.testing.assert_array_equal(np.array(crc["value"], np.float32), values[crc["step"]])
    cut = _json(url, "api/scalars", run="cut", tag="loss", format="json")
    assert cut["step"] == list(range(99))
    warnings = _json(url, "api/warnings")
    assert any(w["run"] == "crc" for w in warnings), warnings
    assert _json(url, "api/runs") == [{"name": "crc", "hparams": False},
                                      {"name": "cut", "hparams": False}]


def test_vanishing_runs_and_logdir_drop_out(tmp_path, board):
    logdir = tmp_path / "logs"
    _write_scalars(logdir / "a", "loss", [1.0, 2.0])
    _write_scalars(logdir / "b", "loss", [3.0])
    url = board(logdir, reload_interval=0.1)
    assert [r["name"] for r in _json(url, "api/runs")] == ["a", "b"]
    assert _json(url, "api/scalars", run="a", tag="loss")["total"] == 2
    shutil.rmtree(logdir / "a")
    assert _wait_for(lambda: [r["name"] for r in _json(url, "api/runs")] == ["b"])
    assert _fetch(url, "api/scalars", {"run": "a", "tag": "loss"})[0] == 404
    assert _json(url, "api/scalars", run="b", tag="loss")["total"] == 1
    shutil.rmtree(logdir)
    assert _wait_for(lambda: _json(url, "api/runs") == [])
    assert _json(url, "api/tags") == {} and _json(url, "api/programs") == []
    assert _json(url, "api/embeddings") == [] and _json(url, "api/hparams") == []
    _write_scalars(logdir / "c", "loss", [4.0, 5.0, 6.0])
    assert _wait_for(lambda: [r["name"] for r in _json(url, "api/runs")] == ["c"])
    assert _json(url, "api/scalars", run="c", tag="loss")["total"] == 3


def test_paths_leading_out_of_the_logdir_are_never_read(tmp_path, board):
    outside, logdir, page = tmp_path / "outside", tmp_path / "logs", tmp_path / "page"
    outside.mkdir()
    fifos = {name: outside / name for name in
             ("events.out.tfevents.1.host", "tensors.tsv", "prog.skmodel", "leak.js")}
    for path in fifos.values():
        os.mkfifo(path)
    secret_file = _write_scalars(outside / "secret_run", "secret", [1.0])
    (logdir / "leak").mkdir(parents=True)
    os.symlink(secret_file, logdir / "leak" / os.path.basename(secret_file))
    _write_scalars(logdir / "a", "loss", [1.0])
    (logdir / "evil").mkdir()
    (logdir / "pipe").mkdir()
    fifos["inside"] = logdir / "pipe" / "events.out.tfevents.3.y"
    fifos["inside.skmodel"] = logdir / "programs_fifo.skmodel"
    for name in ("inside", "inside.skmodel"):
        os.mkfifo(fifos[name])
    os.symlink(fifos["events.out.tfevents.1.host"], logdir / "evil" / "events.out.tfevents.2.x")
    os.symlink(outside / "secret_run", logdir / "linked_run")
    (logdir / "programs").mkdir()
    os.symlink(fifos["prog.skmodel"], logdir / "programs" / "escape.skmodel")
    (logdir / "projector_config.pbtxt").write_text(
        f'embeddings {{ tensor_name: "rel" tensor_path: "../outside/tensors.tsv" }}\n'
        f'embeddings {{ tensor_name: "abs" tensor_path: "{fifos["tensors.tsv"]}" }}\n')
    page.mkdir()
    (page / "index.html").write_text("<html>board</html>")
    os.symlink(fifos["leak.js"], page / "leak.js")
    url = board(logdir, static_dir=str(page))
    try:
        assert _json(url, "api/runs") == [{"name": "a", "hparams": False}]
        assert "secret" not in json.dumps(_json(url, "api/tags"))
        for run in ("../..", "..", "../outside/secret_run", str(outside / "secret_run"),
                    "linked_run", "evil", "pipe", "leak", "a/..", "/"):
            assert _fetch(url, "api/scalars", {"run": run, "tag": "secret"})[0] == 404, run
        for raw in ("api/scalars?run=%2e%2e&tag=secret", "api/scalars?run=%2E%2E%2Foutside&tag=x",
                    "api/program?run=.&name=%2e%2e%2foutside%2fprog",
                    "static/%2e%2e/outside/leak.js", "static/..%2f..%2foutside%2fleak.js",
                    "static/leak.js", "static/../outside/leak.js"):
            assert _fetch(url, raw)[0] == 404, raw
        assert _json(url, "api/programs") == []
        for name in ("escape", "../outside/prog", "../../outside/prog"):
            assert _fetch(url, "api/program", {"run": ".", "name": name})[0] == 404
        assert _fetch(url, "api/program", {"run": "..", "name": "prog"})[0] == 404
        assert _json(url, "api/embeddings") == []
        assert _fetch(url, "api/embedding", {"run": ".", "tag": "rel"})[0] == 404
        assert _fetch(url, "")[2] == b"<html>board</html>"
        warned = {w["run"] for w in _json(url, "api/warnings")}
        assert {"evil", "pipe", "leak"} <= warned, warned
    finally:
        opened = []
        for name, path in fifos.items():
            try:  # succeeds only while some reader holds the FIFO open
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                opened.append(name)
            except OSError as e:
                assert e.errno == errno.ENXIO
    assert opened == [], f"files outside the logdir were opened: {opened}"


def test_a_huge_tag_name_is_served(tmp_path, board):
    huge = "t" * 100_000
    w = _C.EventLogWriter(str(tmp_path))
    for i in range(10):
        w.add_scalar(huge, float(i), i, WALL0 + i)
    w.add_scalar("small", 1.0, 0, WALL0)
    w.close()
    url = board(tmp_path)
    assert huge in _json(url, "api/tags")["."]["scalars"]
    got = _json(url, "api/scalars", run=".", tag=huge)
    assert got["total"] == 10 and got["tag"] == huge
    assert _fetch(url, "api/scalars", {"run": "x" * 200_000, "tag": huge})[0] == 404
    assert _json(url, "api/scalars", run=".", tag="small")["total"] == 1


# ---- the page, the command line, speed ---------------------------------------------------

def test_page_files_and_plotly_are_served(tmp_path, board):
    page = tmp_path / "page"
    page.mkdir()
    (page / "index.html").write_text("<html>index</html>")
    (page / "app.js").write_text("console.log(1);")
    url = board(tmp_path / "logs", static_dir=str(page))
    status, ctype, body, _ = _fetch(url, "")
    assert (status, ctype, body) == (200, "text/html", b"<html>index</html>")
    status, ctype, body, _ = _fetch(url, "static/app.js")
    assert status == 200 and "javascript" in ctype and body == b"console.log(1);"
    status, ctype, body, _ = _fetch(url, "static/plotly.min.js")
    assert status == 200 and "javascript" in ctype
    assert body == open(plotly_js_path(), "rb").read()
    assert _fetch(url, "static/missing.js")[0] == 404
    assert _json(url, "api/runs") == []


def _python_env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(skiff.__file__))
    return env


def _board_command(how):
    """`python -m skiff.board`, or the C++ tool's `skiff board` (which runs the same)."""
    if how == "python":
        return [sys.executable, "-m", "skiff.board"]
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(skiff.__file__))))
    tool = os.path.join(build, "bin", "skiff")
    if not os.path.exists(tool):
        pytest.skip(f"no skiff tool in {build}/bin (not built)")
    return [tool, "board"]


@pytest.mark.parametrize("how", ["python", "skiff_tool"])
def test_command_line_serves_and_reports_a_taken_port(tmp_path, how):
    _write_scalars(tmp_path, "loss", [1.0, 2.0])
    env = dict(_python_env(), SKIFF_PYTHON=sys.executable)
    command = _board_command(how)
    proc = subprocess.Popen(command + ["--logdir", str(tmp_path), "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, line + proc.stderr.read()
        url = line[line.index("http://"):].split()[0]
        assert _json(url, "api/scalars", run=".", tag="loss")["total"] == 2
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = subprocess.run(command + ["--logdir", str(tmp_path), "--port", str(port)],
                                capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1 and "cannot listen" in result.stderr


def test_a_million_points_come_back_downsampled_with_their_extremes(tmp_path, board):
    """(How fast: bench/board_server.py; timings are not unit tests.)"""
    n = 1_000_000
    values = _noisy_series(n)
    w = _C.EventLogWriter(str(tmp_path), max_queue=1 << 20)
    for i, v in enumerate(values.tolist()):
        w.add_scalar("loss", v, i, WALL0 + i)
    w.close()
    assert w.dropped == 0
    got = _json(board(tmp_path), "api/scalars", run=".", tag="loss")
    assert got["total"] == n and 600 < len(got["step"]) <= 1000
    assert got["step"][0] == 0 and got["step"][-1] == n - 1
    kept = np.asarray(got["value"], np.float32)
    assert kept.max() == values.astype(np.float32).max()
    assert kept.min() == values.astype(np.float32).min()
