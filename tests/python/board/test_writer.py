"""skiff.board's writing side against TensorBoard's own reader: every add_* of LogWriter
read back by TensorBoard's EventAccumulator (and its hparams / projector protos) with
the values given, checked against numpy references; logs written by torch's
SummaryWriter read back by skiff's RunLog; the VisualDL callback under Model.fit; the
optimizer watch; a full queue that never loses records silently."""
import io
import os
import struct
import time
import wave

import numpy as np
import pytest
from PIL import Image
from tensorboard.backend.event_processing import event_accumulator as ea
from tensorboard.plugins.hparams import metadata as hp_metadata
from tensorboard.plugins.hparams import plugin_data_pb2
from tensorboard.util import tensor_util

import skiff
from skiff import _C
from skiff.board import LogWriter, watch

KEEP_ALL = {ea.SCALARS: 0, ea.HISTOGRAMS: 0, ea.IMAGES: 0, ea.AUDIO: 0, ea.TENSORS: 0,
            ea.COMPRESSED_HISTOGRAMS: 0}


def tb_read(folder):
    """TensorBoard's reader over one run folder, every record kept."""
    acc = ea.EventAccumulator(str(folder), size_guidance=KEEP_ALL)
    acc.Reload()
    return acc


def read_events(path):
    """The events of one event file, read by their TFRecord framing (length, its CRC,
    data, its CRC) without checking the CRCs (TensorBoard's reader, which does, takes
    seconds over big images)."""
    from tensorboard.compat.proto import event_pb2
    with open(path, "rb") as f:
        data = f.read()
    events, at = [], 0
    while at < len(data):
        (length,) = struct.unpack_from("<Q", data, at)
        events.append(event_pb2.Event.FromString(data[at + 12:at + 12 + length]))
        at += 12 + length + 4
    return events


def pr_reference(labels, predictions, num_thresholds, weights=None):
    """TensorBoard's pr_curves data [TP, FP, TN, FN, precision, recall] x thresholds:
    predictions bucketed by floor(p * (n - 1)), counts summed from each threshold up."""
    w = np.ones_like(predictions) if weights is None else weights
    positive = labels >= 0.5
    bucket = np.floor(predictions * (num_thresholds - 1)).astype(np.int64)
    tp_b = np.bincount(bucket, weights=w * positive, minlength=num_thresholds)
    fp_b = np.bincount(bucket, weights=w * ~positive, minlength=num_thresholds)
    tp, fp = np.cumsum(tp_b[::-1])[::-1], np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.stack([tp, fp, tn, fn, precision, recall]).astype(np.float32)


def bucket_counts(values, limits):
    """How many values fall in each bucket (previous limit, limit]."""
    lower = np.concatenate([[-np.inf], limits[:-1]])
    return np.array([np.sum((values > lo) & (values <= hi)) for lo, hi in zip(lower, limits)])


def png_pixels(data):
    return np.asarray(Image.open(io.BytesIO(data)))


def wav_samples(data):
    """(sample rate, channels, int16 samples [frames, channels]) of a WAV file."""
    with wave.open(io.BytesIO(data)) as f:
        assert f.getsampwidth() == 2
        frames = np.frombuffer(f.readframes(f.getnframes()), dtype="<i2")
        return f.getframerate(), f.getnchannels(), frames.reshape(-1, f.getnchannels())


# ---- skiff writes, TensorBoard reads --------------------------------------------------

def test_scalars_of_every_kind_read_back_exactly(tmp_path):
    values = [0.1, np.float32(2.5), np.float64(-1e-30), 7, skiff.to_tensor([3.25]),
              skiff.to_tensor(np.float32(1 / 3)), np.array([0.7]), np.int64(4)]
    with LogWriter(tmp_path) as w:
        for step, v in enumerate(values):
            w.add_scalar("train/loss", v, step)
        w.add_scalar("timed", 1.0, np.int64(5), walltime=1_600_000_000.5)
        w.add_scalar("timed", 2.0, 6, walltime=1_600_000_001_500)  # VisualDL's milliseconds
        before = time.time()
        w.add_scalar("now", 1.0, 0)
    acc = tb_read(tmp_path)
    got = acc.Scalars("train/loss")
    expected = [np.float32(np.asarray(v.numpy() if hasattr(v, "numpy") else v).reshape(-1)[0])
                for v in values]
    assert [e.step for e in got] == list(range(len(values)))
    assert [np.float32(e.value) for e in got] == expected
    assert [(e.step, e.wall_time) for e in acc.Scalars("timed")] == [
        (5, 1_600_000_000.5), (6, 1_600_000_001.5)]
    assert abs(acc.Scalars("now")[0].wall_time - before) < 5


def test_add_scalars_writes_one_run_per_key(tmp_path):
    with LogWriter(tmp_path) as w:
        for step in range(3):
            w.add_scalars("lr/group", {"a": 0.5 * step, "b": np.float32(step)}, step)
    for key, scale in (("a", 0.5), ("b", 1.0)):
        got = tb_read(tmp_path / f"lr_group_{key}").Scalars("lr/group")
        assert [(e.step, e.value) for e in got] == [(s, scale * s) for s in range(3)]
    assert "lr/group" not in tb_read(tmp_path).Tags()["scalars"]


def test_histograms_match_numpy(tmp_path):
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((40, 25)) * (i + 1) for i in range(3)]
    with LogWriter(tmp_path) as w:
        for step, values in enumerate(batches):
            w.add_histogram("weights", skiff.to_tensor(values.astype(np.float32)), step,
                            buckets=7)
        w.add_histogram("default_buckets", batches[0], 0)
    acc = tb_read(tmp_path)
    for step, (event, values) in enumerate(zip(acc.Histograms("weights"), batches)):
        v = values.astype(np.float32).astype(np.float64).reshape(-1)
        h = event.histogram_value
        assert event.step == step
        assert (h.min, h.max, h.num) == (v.min(), v.max(), v.size)
        assert h.sum == pytest.approx(v.sum(), rel=1e-12, abs=1e-9)
        assert h.sum_squares == pytest.approx((v * v).sum(), rel=1e-12)
        assert len(h.bucket) == 7 and h.bucket_limit[-1] >= v.max()
        np.testing.assert_array_equal(h.bucket, bucket_counts(v, np.array(h.bucket_limit)))
    assert len(acc.Histograms("default_buckets")[0].histogram_value.bucket) == 10


@pytest.mark.parametrize("layout", ["HWC", "CHW", "HW", "CHW1", "HWC4", "float"])
def test_images_decode_to_the_input(tmp_path, layout):
    rng = np.random.default_rng(1)
    rgb = rng.integers(0, 256, (5, 7, 3), dtype=np.uint8)
    img, fmt, expected = {
        "HWC": (rgb, "HWC", rgb),
        "CHW": (skiff.to_tensor(rgb.transpose(2, 0, 1).copy()), "CHW", rgb),
        "HW": (rgb[..., 0], "HW", rgb[..., 0]),
        "CHW1": (rgb[None, ..., 1], "CHW", rgb[..., 1]),
        "HWC4": (np.dstack([rgb, rgb[..., :1]]), "HWC", np.dstack([rgb, rgb[..., :1]])),
        "float": (rgb / 255.0, "HWC", rgb),
    }[layout]
    with LogWriter(tmp_path) as w:
        w.add_image("img", img, 3, dataformats=fmt)
    event = tb_read(tmp_path).Images("img")[0]
    assert (event.step, event.width, event.height) == (3, 7, 5)
    np.testing.assert_array_equal(png_pixels(event.encoded_image_string), expected)


def test_float_images_are_scaled_and_clipped(tmp_path):
    img = np.array([[0.0, 0.5, 1.0], [-0.2, 0.25, 1.7]], dtype=np.float32)
    with LogWriter(tmp_path) as w:
        w.add_image("gray", img, 0, dataformats="HW")
    got = png_pixels(tb_read(tmp_path).Images("gray")[0].encoded_image_string)
    np.testing.assert_array_equal(got, np.rint(np.clip(img, 0, 1) * 255).astype(np.uint8))


def test_image_matrix_tiles_a_batch(tmp_path):
    rng = np.random.default_rng(2)
    batch = rng.integers(0, 256, (5, 4, 3, 3), dtype=np.uint8)  # N, H, W, C
    with LogWriter(tmp_path) as w:
        w.add_image_matrix("grid", batch, 0)
    got = png_pixels(tb_read(tmp_path).Images("grid")[0].encoded_image_string)
    assert got.shape == (3 * 4, 2 * 3, 3)  # 3 rows of 2 for 5 images
    for i in range(6):
        r, c = divmod(i, 2)
        cell = got[r * 4:(r + 1) * 4, c * 3:(c + 1) * 3]
        np.testing.assert_array_equal(cell, batch[i] if i < 5 else 0)


def test_audio_decodes_to_the_samples(tmp_path):
    t = np.arange(800) / 8000.0
    mono = 0.8 * np.sin(2 * np.pi * 440 * t)
    stereo = np.stack([mono, -0.5 * mono], axis=1).astype(np.float32)
    pcm = (mono * 20000).astype(np.int16)
    with LogWriter(tmp_path) as w:
        w.add_audio("mono", mono, 1)
        w.add_audio("stereo", stereo, 2, sample_rate=16000)
        w.add_audio("pcm", pcm, 3)
    acc = tb_read(tmp_path)
    for tag, samples, rate in (("mono", mono[:, None], 8000), ("stereo", stereo, 16000),
                               ("pcm", pcm[:, None] / 32768.0, 8000)):
        event = acc.Audio(tag)[0]
        assert (event.sample_rate, event.length_frames) == (rate, len(samples))
        assert event.content_type == "audio/wav"
        got_rate, channels, got = wav_samples(event.encoded_audio_string)
        assert (got_rate, channels) == (rate, samples.shape[1])
        np.testing.assert_allclose(got / 32767.0, samples, atol=1.5 / 32767)


def test_text_reads_back(tmp_path):
    texts = ["plain", "**markdown** with ünïcode ✓", ""]
    with LogWriter(tmp_path) as w:
        for step, text in enumerate(texts):
            w.add_text("notes", text, step)
        w.add_text("no_step", "x")
    acc = tb_read(tmp_path)
    got = [(e.step, tensor_util.make_ndarray(e.tensor_proto).item().decode())
           for e in acc.Tensors("notes")]
    assert got == list(enumerate(texts))
    assert acc.Tensors("no_step")[0].step == 0
    assert acc.SummaryMetadata("notes").plugin_data.plugin_name == "text"


@pytest.mark.parametrize("weighted", [False, True])
def test_pr_curves_match_the_reference(tmp_path, weighted):
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 2, 300)
    predictions = np.clip(0.3 * labels + 0.7 * rng.random(300), 0, 1)
    weights = rng.random(300) * 3 if weighted else None
    with LogWriter(tmp_path) as w:
        w.add_pr_curve("pr", labels, predictions, 4, num_thresholds=13, weights=weights)
    event = tb_read(tmp_path).Tensors("pr")[0]
    assert event.step == 4
    np.testing.assert_allclose(tensor_util.make_ndarray(event.tensor_proto),
                               pr_reference(labels, predictions, 13, weights),
                               rtol=1e-6, atol=1e-4)


def test_hparams_are_tensorboard_plugin_data(tmp_path):
    hparams = {"lr": 0.01, "layers": 3, "optimizer": "adam", "bn": True,
               "decay": np.float32(0.5)}
    with LogWriter(tmp_path) as w:
        w.add_hparams(hparams, ["hparam/accuracy", "hparam/loss"])
        w.add_scalar("hparam/accuracy", 0.9, 1)
    content = tb_read(tmp_path).PluginTagToContent("hparams")
    experiment = plugin_data_pb2.HParamsPluginData.FromString(
        content[hp_metadata.EXPERIMENT_TAG]).experiment
    assert sorted(h.name for h in experiment.hparam_infos) == sorted(hparams)
    assert [m.name.tag for m in experiment.metric_infos] == ["hparam/accuracy", "hparam/loss"]
    session = plugin_data_pb2.HParamsPluginData.FromString(
        content[hp_metadata.SESSION_START_INFO_TAG]).session_start_info
    assert session.hparams["lr"].number_value == 0.01
    assert session.hparams["layers"].number_value == 3
    assert session.hparams["optimizer"].string_value == "adam"
    assert session.hparams["bn"].bool_value is True
    assert session.hparams["decay"].number_value == 0.5


def test_embeddings_follow_the_projector_layout(tmp_path):
    from google.protobuf import text_format
    from tensorboard.plugins.projector import projector_config_pb2
    rng = np.random.default_rng(4)
    mat = rng.standard_normal((6, 4)).astype(np.float32)
    labels = [f"p{i}" for i in range(6)]
    columns = [labels, [str(i % 2) for i in range(6)]]
    with LogWriter(tmp_path) as w:
        w.add_embeddings("points", mat=mat, metadata=labels)
        w.add_embeddings("points", mat=mat, metadata=labels)  # registered once
        w.add_embeddings("a/b", mat=skiff.to_tensor(mat), metadata=columns,
                         metadata_header=["name", "parity"], step=3)
    with open(tmp_path / "projector_config.pbtxt") as f:
        config = text_format.Parse(f.read(), projector_config_pb2.ProjectorConfig())
    entries = {e.tensor_name: e for e in config.embeddings}
    assert sorted(entries) == ["a/b:00003", "points:00000"]
    for name, header, rows in (("points:00000", [], [[x] for x in labels]),
                               ("a/b:00003", [["name", "parity"]], list(map(list, zip(*columns))))):
        entry = entries[name]
        got = np.loadtxt(tmp_path / entry.tensor_path, delimiter="\t", dtype=np.float32)
        np.testing.assert_array_equal(got, mat)
        with open(tmp_path / entry.metadata_path) as f:
            assert [line.rstrip("\n").split("\t") for line in f] == header + rows
        assert os.path.realpath(tmp_path / entry.tensor_path).startswith(str(tmp_path))


# ---- programs -------------------------------------------------------------------------

def _op_types(program):
    return [program.op(0, i).type for i in range(program.num_ops(0))]


def test_add_graph_saves_a_layer_and_a_program(tmp_path):
    import skiff.nn as nn
    import skiff.static as st
    net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    spec = [st.InputSpec([None, 4], "float32", "x")]
    main = st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, st.Program()):
            x = st.data("x", [None, 3], "float32")
            skiff.tanh(x * 2.0).sum()
    finally:
        skiff.disable_static()
    logdir = tmp_path / "log"
    with LogWriter(logdir) as w:
        layer_path = w.add_graph(net, input_spec=spec)
        program_path = w.add_program(main, name="tiny")
    assert layer_path == str(logdir / "programs" / "Sequential.skmodel")
    assert sorted(os.listdir(logdir / "programs")) == ["Sequential.skmodel", "tiny.skmodel"]
    skiff.jit.save(net, str(tmp_path / "ref"), input_spec=spec)  # the reference
    reference = _C.load_program(str(tmp_path / "ref.skmodel"))
    layer = _C.load_program(layer_path)
    assert list(layer.feed_names) == ["x"] and len(layer.fetch_names) == 1
    assert _op_types(layer) == _op_types(reference) and "relu" in _op_types(layer)
    assert _op_types(_C.load_program(program_path)) == _op_types(main.desc)


# ---- torch writes, skiff reads --------------------------------------------------------

def test_run_log_reads_torch_summary_writer(tmp_path):
    from torch.utils import tensorboard as tb
    rng = np.random.default_rng(5)
    values = rng.standard_normal(500)
    rgb = rng.integers(0, 256, (3, 6, 4), dtype=np.uint8)  # CHW
    labels, preds = rng.integers(0, 2, 100), rng.random(100)
    writer = tb.SummaryWriter(str(tmp_path))
    for step in range(4):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
    writer.add_histogram("h", values, 2, bins=12)
    writer.add_image("img", rgb, 1)
    writer.add_text("note", "hello *torch*", 5)
    writer.add_pr_curve("pr", labels, preds, 7, num_thresholds=11)
    writer.add_hparams({"lr": 0.1, "opt": "sgd"}, {"hparam/acc": 0.75}, run_name=".")
    writer.close()
    run = _C.RunLog(str(tmp_path))
    assert run.reload() > 0
    assert run.warnings() == []
    steps, _, got = run.scalars("loss")
    assert steps.tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(got, np.float32([1.0 / (s + 1) for s in range(4)]))
    h = run.histograms("h")[0]
    assert (h["step"], h["min"], h["max"], h["num"]) == (2, values.min(), values.max(), 500)
    assert sum(h["counts"]) == 500 and len(h["counts"]) == len(h["limits"])
    image = run.images("img")[0]
    assert (image["step"], image["width"], image["height"]) == (1, 4, 6)
    np.testing.assert_array_equal(png_pixels(run.image("img", 0)), rgb.transpose(1, 2, 0))
    assert run.texts("note/text_summary") == [  # torch's tag for add_text("note")
        {"step": 5, "wall_time": pytest.approx(time.time(), abs=60), "text": "hello *torch*"}]
    curve = run.pr_curves("pr")[0]
    ref = pr_reference(labels, preds, 11)
    assert (curve["step"], curve["thresholds"]) == (7, 11)
    for i, key in enumerate(("tp", "fp", "tn", "fn", "precision", "recall")):
        np.testing.assert_allclose(curve[key], ref[i], rtol=1e-6, atol=1e-6, err_msg=key)
    hp = run.hparams()
    assert hp["hparams"] == {"lr": 0.1, "opt": "sgd"} and hp["metrics"] == ["hparam/acc"]
    assert run.scalars("hparam/acc")[2].tolist() == [0.75]


# ---- training hooks -------------------------------------------------------------------

def _tiny_classifier():
    import skiff.nn as nn
    skiff.seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))


def _tiny_data(n=48, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 4)).astype(np.float32)
    y = (x[:, :3].argmax(1)).astype(np.int64).reshape(-1, 1)
    return x, y


def test_visualdl_callback_logs_what_fit_reports(tmp_path):
    from skiff.hapi.callbacks import Callback, VisualDL
    from skiff.io import TensorDataset
    from skiff.metric import Accuracy

    class Recorder(Callback):
        def __init__(self):
            super().__init__()
            self.train, self.eval = [], []

        def on_train_batch_end(self, step, logs=None):
            self.train.append((logs["loss"][0], logs["acc"]))

        def on_eval_end(self, logs=None):
            self.eval.append((logs["loss"][0], logs["acc"]))

    net = _tiny_classifier()
    model = skiff.Model(net)
    model.prepare(skiff.optimizer.SGD(0.1, parameters=net.parameters()),
                  skiff.nn.CrossEntropyLoss(), Accuracy())
    rec = Recorder()
    x, y = _tiny_data()
    model.fit(TensorDataset([x, y]), eval_data=TensorDataset(_tiny_data(24, 1)), batch_size=16,
              epochs=2, shuffle=False, verbose=0, callbacks=[VisualDL(str(tmp_path)), rec])
    acc = tb_read(tmp_path)
    assert sorted(acc.Tags()["scalars"]) == ["eval/acc", "eval/loss", "train/acc", "train/loss"]
    for tag, i in (("train/loss", 0), ("train/acc", 1)):
        got = [(e.step, e.value) for e in acc.Scalars(tag)]
        assert got == [(s + 1, np.float32(r[i])) for s, r in enumerate(rec.train)]
    for tag, i in (("eval/loss", 0), ("eval/acc", 1)):
        got = [(e.step, e.value) for e in acc.Scalars(tag)]
        assert got == [(epoch, np.float32(r[i])) for epoch, r in enumerate(rec.eval)]


def test_watch_logs_learning_rate_and_gradient_norm(tmp_path):
    net = _tiny_classifier()
    scheduler = skiff.optimizer.lr.StepDecay(0.5, step_size=2, gamma=0.1)
    opt = skiff.optimizer.SGD(scheduler, parameters=net.parameters())
    loss_fn = skiff.nn.CrossEntropyLoss()
    x, y = _tiny_data()
    expected = []
    with LogWriter(tmp_path) as w:
        handle = watch(opt, w, every=2)
        for step in range(1, 8):
            loss_fn(net(skiff.to_tensor(x)), skiff.to_tensor(y)).backward()
            grads = [p.grad.numpy().astype(np.float64) for p in net.parameters()]
            lr = opt.get_lr()
            opt.step()
            opt.clear_grad()
            scheduler.step()
            if step % 2 == 0:
                expected.append((step, lr, np.sqrt(sum((g * g).sum() for g in grads))))
            if step == 6:
                handle.remove()
    acc = tb_read(tmp_path)
    expected = [e for e in expected if e[0] <= 6]
    assert [(e.step, e.value) for e in acc.Scalars("train/lr")] == [
        (s, np.float32(lr)) for s, lr, _ in expected]
    got = [(e.step, e.value) for e in acc.Scalars("train/grad_norm")]
    assert [s for s, _ in got] == [s for s, _, _ in expected]
    np.testing.assert_allclose([v for _, v in got], [n for _, _, n in expected], rtol=1e-5)


def test_step_post_hooks_see_step_and_minimize():
    net = _tiny_classifier()
    opt = skiff.optimizer.Adam(0.01, parameters=net.parameters())
    seen = []
    first = opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("a", o)))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("b", o)))
    x, y = _tiny_data(8)
    loss = skiff.nn.CrossEntropyLoss()(net(skiff.to_tensor(x)), skiff.to_tensor(y))
    loss.backward()
    opt.step()
    first.remove()
    opt.minimize(loss)
    assert seen == [("a", opt), ("b", opt), ("b", opt)]


# ---- the writer's contract --------------------------------------------------------------

def test_a_full_queue_loses_nothing_silently(tmp_path, capfd):
    n = 20000
    w = LogWriter(tmp_path, max_queue=4)
    for step in range(n):
        w.add_scalar("burst", float(step), step)
    w.close()
    got = tb_read(tmp_path).Scalars("burst")
    assert len(got) + w.dropped == n
    assert [e.value for e in got] == sorted(e.value for e in got)
    if w.dropped:
        assert "drop" in capfd.readouterr().err.lower()


def test_records_that_wait_too_long_are_dropped_and_reported(tmp_path, capfd):
    """16 threads add big images to a queue of one: the writer frees a place per PNG
    encoded (a tenth of a second or more), so some callers wait over a second and drop."""
    import threading
    image = np.random.default_rng(6).integers(0, 256, (1500, 1500, 3), dtype=np.uint8)
    w = LogWriter(tmp_path, max_queue=1)
    threads = [threading.Thread(target=w.add_image, args=("big", image, i)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    w.close()
    kept = [e.step for e in read_events(w.file_name) if e.summary.value]
    assert w.dropped > 0 and len(kept) + w.dropped == 16 and len(set(kept)) == len(kept)
    assert "drop" in capfd.readouterr().err.lower()


def test_add_scalar_is_cheap_for_the_caller(tmp_path):
    w = LogWriter(tmp_path, max_queue=1 << 20)
    calls, best = 20000, float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for step in range(calls):
            w.add_scalar("fast", 0.5, step)
        best = min(best, (time.perf_counter() - start) / calls)
    w.close()
    assert w.dropped == 0
    assert best < 2e-6, f"add_scalar costs {best * 1e6:.2f} us per call"


def test_closed_writer_and_bad_input_raise(tmp_path):
    w = LogWriter(tmp_path)
    with pytest.raises(ValueError, match="dataformats"):
        w.add_image("img", np.zeros((2, 3, 3)), 0, dataformats="CHW")
    with pytest.raises(ValueError, match="one value"):
        w.add_scalar("s", np.zeros(3), 0)
    w.close()
    with pytest.raises(skiff.Error, match="closed.*'late/tag'"):
        w.add_scalar("late/tag", 1.0, 0)


def test_write_to_disk_false_writes_nothing(tmp_path):
    with LogWriter(tmp_path / "run", write_to_disk=False) as w:
        w.add_scalar("s", 1.0, 0)
        w.add_embeddings("e", mat=np.ones((2, 2)))
    assert not (tmp_path / "run").exists()


def test_default_logdir_is_runs_time_host(tmp_path, monkeypatch):
    import socket
    monkeypatch.chdir(tmp_path)
    with LogWriter(comment="_exp") as w:
        w.add_scalar("s", 1.0, 0)
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith(f"_{socket.gethostname()}_exp")
    assert w.logdir == os.path.join("runs", run) and os.path.exists(w.file_name)


def test_a_named_event_file_is_appended_to(tmp_path):
    for step in range(2):
        with LogWriter(str(tmp_path), file_name="events.out.tfevents.mine") as w:
            w.add_scalar("x", float(step), step)
    run = _C.RunLog(str(tmp_path))
    run.reload()
    steps, _, values = run.scalars("x")
    assert list(steps) == [0, 1] and list(values) == [0.0, 1.0]
    with pytest.raises(skiff.Error, match="tfevents"):
        LogWriter(str(tmp_path), file_name="vdlrecords.1.log")


def test_text_that_is_not_utf8_reads_with_replacement_characters(tmp_path):
    from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    writer = EventFileWriter(str(tmp_path))
    value = summary_pb2.Summary.Value(
        tag="notes", tensor=tensor_pb2.TensorProto(dtype=7, string_val=[b"ok \xff\xfe bad"]))
    value.metadata.plugin_data.plugin_name = "text"
    writer.add_event(event_pb2.Event(step=3, summary=summary_pb2.Summary(value=[value])))
    writer.close()
    run = _C.RunLog(str(tmp_path))
    run.reload()
    [record] = run.texts("notes")
    assert record["step"] == 3 and record["text"] == "ok \ufffd\ufffd bad"
