"""skiff.board.LogWriter: VisualDL's LogWriter API writing TensorBoard event files.

    from skiff.board import LogWriter
    with LogWriter("runs/exp1") as writer:
        for step in range(100):
            writer.add_scalar("train/loss", loss, step)
        writer.add_image("input", image, step, dataformats="CHW")

Every add_* copies its data and returns at once: the event writer in skiff._C encodes
(PNG, WAV, histogram bins) and writes on its own thread, flushing every ``flush_secs``.
Wall times are seconds since the epoch (VisualDL's milliseconds are recognised and
converted); omitted, they are the time of the call.
"""
import datetime
import os
import shutil
import socket
import tempfile
import urllib.parse

import numpy as np

from .. import _C
from .media import as_array, audio_frames, image_hwc
from .projector import write_embedding
from .. import jit

__all__ = ["LogWriter", "default_logdir"]

_MILLISECONDS = 1e11  # a wall time above this (year 5138 in seconds) is in milliseconds


def default_logdir(comment=""):
    """runs/<Mon>DD_HH-MM-SS_<host><comment>, as VisualDL and torch name a new run."""
    stamp = datetime.datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")


def _seconds(walltime):
    seconds = float(walltime)
    return seconds / 1000.0 if seconds > _MILLISECONDS else seconds


def _one_value(value):
    """A scalar from a number, numpy scalar/array or skiff Tensor holding one element."""
    a = as_array(value)
    if a.size != 1:
        raise ValueError(f"add_scalar takes one value, got shape {list(a.shape)}")
    return float(a.reshape(-1)[0])


def _step(step):
    """A step as an int: None is 0; numpy integers and one-element Tensors are read."""
    if step is None:
        return 0
    if hasattr(step, "numpy"):
        return int(as_array(step).reshape(-1)[0])
    return int(step)


def _hparam_value(key, value):
    if isinstance(value, (bool, str, int, float)):
        return value
    if isinstance(value, np.generic) or hasattr(value, "numpy"):
        return as_array(value).reshape(-1)[0].item()
    raise TypeError(f"add_hparams: the value of {key!r} must be a str, bool, int or float, "
                    f"got {type(value).__name__}")


def _ignore(*args, **kwargs):
    return None


class _NoFile:
    """Stands in for the event writer when write_to_disk=False: every call does nothing."""
    path = ""
    dropped = 0

    def __getattr__(self, name):
        return _ignore


class LogWriter:
    """Writes one run: an event file in ``logdir`` (default: runs/<time>_<host><comment>).
    ``max_queue`` records may wait for the writer thread (a call waits while the queue
    is full; after a second it drops the record and counts it in ``dropped``);
    ``flush_secs``: how often queued records reach the disk. ``file_name`` names the
    event file (it must hold "tfevents", as readers look for it; an existing one is
    appended to). ``write_to_disk=False``
    writes nothing (for ranks other than 0). ``display_name`` is kept as an attribute:
    TensorBoard runs are named by their folder."""

    def __init__(self, logdir=None, comment="", max_queue=4096, flush_secs=2.0,
                 filename_suffix="", display_name="", file_name="", **kwargs):
        self._write_to_disk = bool(kwargs.pop("write_to_disk", True))
        self._logdir = os.fspath(logdir) if logdir else default_logdir(comment)
        self._options = {"filename_suffix": str(filename_suffix), "max_queue": int(max_queue),
                         "flush_secs": float(flush_secs)}
        self.display_name = display_name
        self.kwargs = kwargs
        self._writer = self._open(self._logdir, str(file_name))
        self._add_scalar = self._writer.add_scalar
        self._children = {}  # add_scalars' run folder -> its writer
        self._closed = False

    def _open(self, folder, file_name=""):
        if not self._write_to_disk:
            return _NoFile()
        return _C.EventLogWriter(folder, file_name=file_name, **self._options)

    @property
    def logdir(self):
        """The run's folder."""
        return self._logdir

    @property
    def file_name(self):
        """The event file this writer appends to ('' with write_to_disk=False)."""
        return self._writer.path

    @property
    def dropped(self):
        """How many records were dropped because the queue stayed full (never silently:
        the writer also reports each drop on stderr)."""
        return self._writer.dropped + sum(w.dropped for w in self._children.values())

    def add_scalar(self, tag, value, step, walltime=None):
        """Records ``value`` (a float, numpy scalar or one-element Tensor) at ``step``."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        try:
            self._add_scalar(tag, value, step, walltime)
        except TypeError:
            self._add_scalar(tag, _one_value(value), _step(step), walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, step, walltime=None):
        """Records several curves drawn on one chart ``main_tag``, one per key. VisualDL
        marks each value with its key inside its own record format; event files have no
        such field, so as torch does each key is a run of its own,
        logdir/<main_tag>_<key> ('/' in main_tag as '_'), holding the scalar main_tag."""
        if not isinstance(tag_scalar_dict, dict):
            raise TypeError(f"add_scalars: tag_scalar_dict must be a dict, got "
                            f"{type(tag_scalar_dict).__name__}")
        walltime = 0.0 if walltime is None else _seconds(walltime)
        prefix = str(main_tag).replace("/", "_")
        for key, value in tag_scalar_dict.items():
            folder = os.path.join(self._logdir, f"{prefix}_{key}")
            writer = self._children.get(folder)
            if writer is None:
                writer = self._children[folder] = self._open(folder)
            writer.add_scalar(main_tag, _one_value(value), _step(step), walltime)

    def add_image(self, tag, img, step, walltime=None, dataformats="HWC"):
        """Records an image: ``img`` laid out as ``dataformats`` ('HWC', 'CHW', 'HW', ...;
        'NCHW'/'NHWC' tile a batch), uint8 or floats in [0, 1], 1, 3 or 4 channels."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        self._writer.add_image(tag, image_hwc(img, dataformats), _step(step), walltime)

    def add_image_matrix(self, tag, imgs, step, rows=-1, scale=1.0, walltime=None,
                         dataformats="HWC"):
        """Records a batch of images (each laid out as ``dataformats``) as one grid of
        ``rows`` rows (-1: as square as possible), resized by ``scale``."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        grid = image_hwc(imgs, "N" + str(dataformats).upper(), rows, scale)
        self._writer.add_image(tag, grid, _step(step), walltime)

    def add_histogram(self, tag, values, step, walltime=None, buckets=10):
        """Records the distribution of ``values`` (any shape) in ``buckets`` bins."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        flat = np.array(as_array(values), dtype=np.float64).reshape(-1)
        self._writer.add_histogram(tag, flat, _step(step), walltime, int(buckets))

    def add_text(self, tag, text_string, step=None, walltime=None):
        """Records a text (the page shows it as plain text, TensorBoard as Markdown)."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        self._writer.add_text(tag, str(text_string), _step(step), walltime)

    def add_audio(self, tag, audio_array, step, sample_rate=8000, walltime=None):
        """Records a clip: samples (1-D or [frames, channels]) as floats in [-1, 1] or
        int16, stored as 16-bit WAV at ``sample_rate``."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        self._writer.add_audio(tag, audio_frames(audio_array), int(sample_rate), _step(step),
                               walltime)

    def add_pr_curve(self, tag, labels, predictions, step=None, num_thresholds=10,
                     weights=None, walltime=None):
        """Records a precision-recall curve over ``num_thresholds`` thresholds from binary
        ``labels`` and ``predictions`` in [0, 1]; ``weights`` (one per element or a single
        number) weight each element's count."""
        walltime = 0.0 if walltime is None else _seconds(walltime)
        labels = np.array(as_array(labels), dtype=np.float64).reshape(-1)
        predictions = np.array(as_array(predictions), dtype=np.float64).reshape(-1)
        if labels.shape != predictions.shape:
            raise ValueError(f"add_pr_curve({tag!r}): {labels.size} labels for "
                             f"{predictions.size} predictions")
        if weights is not None:
            weights = np.array(as_array(weights), dtype=np.float64).reshape(-1)
            if weights.size == 1:
                weights = np.full(labels.shape, weights[0])
            elif weights.shape != labels.shape:
                raise ValueError(f"add_pr_curve({tag!r}): {weights.size} weights for "
                                 f"{labels.size} elements")
        self._writer.add_pr_curve(tag, labels, predictions, _step(step), walltime,
                                  int(num_thresholds), weights)

    def add_hparams(self, hparams_dict, metrics_list, walltime=None):
        """Records the run's hyperparameters (str, bool, int or float values) and the
        scalar tags that measure it (log those with add_scalar)."""
        if not isinstance(hparams_dict, dict):
            raise TypeError(f"add_hparams: hparams_dict must be a dict, got "
                            f"{type(hparams_dict).__name__}")
        if not isinstance(metrics_list, (list, tuple)):
            raise TypeError(f"add_hparams: metrics_list must be a list, got "
                            f"{type(metrics_list).__name__}")
        hparams = {str(k): _hparam_value(k, v) for k, v in hparams_dict.items()}
        walltime = 0.0 if walltime is None else _seconds(walltime)
        self._writer.add_hparams(hparams, [str(m) for m in metrics_list], walltime)

    def add_embeddings(self, tag, mat=None, metadata=None, metadata_header=None,
                       walltime=None, labels=None, hot_vectors=None, labels_meta=None,
                       step=0):
        """Writes points ``mat`` ([n, d]) with their ``metadata`` (n labels, or a list of
        label columns named by ``metadata_header``) in TensorBoard's projector layout
        under logdir; returns their folder. labels / hot_vectors / labels_meta are
        VisualDL's old names of metadata / mat / metadata_header."""
        mat = hot_vectors if mat is None else mat
        metadata = labels if metadata is None else metadata
        metadata_header = labels_meta if metadata_header is None else metadata_header
        if mat is None:
            raise ValueError(f"add_embeddings({tag!r}): mat is required")
        if not self._write_to_disk:
            return None
        return write_embedding(self._logdir, tag, mat, metadata, metadata_header, step)

    def add_graph(self, model, input_spec=None, verbose=False, name=None):
        """Saves a program for the program view as <logdir>/programs/<name>.skmodel:
        a skiff.static.Program as it is, or a Layer's forward traced with ``input_spec``
        (InputSpecs or example Tensors, as skiff.jit.save takes them). ``name`` defaults
        to the Layer's class name ('program' for a Program). Returns the file's path."""
        name = name or ("program" if _program_desc(model) is not None else type(model).__name__)
        folder = os.path.join(self._logdir, "programs")
        path = os.path.join(folder, _file_name(name) + ".skmodel")
        if not self._write_to_disk:
            return None
        os.makedirs(folder, exist_ok=True)
        desc = _program_desc(model)
        if desc is not None:
            _C.save_program(desc, path)
        else:
            _save_layer_program(model, input_spec, path)
        if verbose:
            print(f"LogWriter.add_graph: saved {name!r} to {path}")
        return path

    add_program = add_graph

    def flush(self):
        """Returns once everything recorded so far is on disk."""
        self._writer.flush()
        for writer in self._children.values():
            writer.flush()

    def close(self):
        """Flushes and closes the event files; later add_* calls raise skiff.Error."""
        if self._closed:
            return
        self._closed = True
        self._writer.close()
        for writer in self._children.values():
            writer.close()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        self.close()

    def __repr__(self):
        return f"LogWriter(logdir={self._logdir!r})"


def _program_desc(model):
    """The C++ program of a skiff.static.Program (or the program itself), else None."""
    if isinstance(model, _C.Program):
        return model
    desc = getattr(model, "desc", None)
    return desc if isinstance(desc, _C.Program) else None


def _file_name(name):
    quoted = urllib.parse.quote(str(name), safe="")
    return "_" + quoted if quoted in ("", ".", "..") else quoted


def _save_layer_program(layer, input_spec, path):
    """jit.save's traced inference program, without its parameter file."""
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "model")
        jit.save(layer, prefix, input_spec=input_spec)
        shutil.move(prefix + ".skmodel", path)
