"""Embeddings in TensorBoard's projector layout, as torch's add_embedding writes them:

    <logdir>/<step:05d>/<quoted tag>/tensors.tsv    one row per point, values tab-separated
    <logdir>/<step:05d>/<quoted tag>/metadata.tsv   one label per line (a header line first
                                                    when there are several columns)
    <logdir>/projector_config.pbtxt                 embeddings { tensor_name: "TAG:STEP"
                                                    tensor_path: ... metadata_path: ... }
"""
import os
import urllib.parse

import numpy as np

from .media import as_array

__all__ = ["write_embedding", "CONFIG_FILE"]

CONFIG_FILE = "projector_config.pbtxt"


def _folder_name(tag):
    """``tag`` as one safe path component (never '', '.' or '..')."""
    name = urllib.parse.quote(str(tag), safe="")
    return "_" + name if name in ("", ".", "..") else name


def _cell(value):
    """A metadata value on one TSV cell: tabs and line breaks become spaces."""
    text = value.decode() if isinstance(value, bytes) else str(value)
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _metadata_columns(metadata, n):
    """The metadata as a list of columns of n labels: a flat list is one column; a 2-D
    one is VisualDL's list of columns (each n long) or else a list of n rows."""
    if isinstance(metadata, np.ndarray):
        metadata = metadata.tolist()
    metadata = list(metadata)
    if len(metadata) and isinstance(metadata[0], (list, tuple, np.ndarray)):
        if all(len(col) == n for col in metadata):
            return [list(col) for col in metadata]
        if len(metadata) == n and len({len(row) for row in metadata}) == 1:
            return [list(col) for col in zip(*metadata)]
        raise ValueError(f"embedding metadata: expected columns of {n} labels or {n} rows")
    if len(metadata) != n:
        raise ValueError(f"embedding metadata has {len(metadata)} labels for {n} points")
    return [metadata]


def _write_metadata(path, columns, header):
    with open(path, "w", encoding="utf-8") as f:
        if len(columns) > 1:
            header = list(header) if header is not None else [
                f"label_{i}" for i in range(len(columns))]
            if len(header) != len(columns):
                raise ValueError(f"metadata_header names {len(header)} columns, the metadata "
                                 f"has {len(columns)}")
            f.write("\t".join(_cell(h) for h in header) + "\n")
        for row in zip(*columns):
            f.write("\t".join(_cell(v) for v in row) + "\n")


def _pbtxt_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _register(logdir, tensor_name, tensor_path, metadata_path):
    """Appends the embedding's entry to the projector config unless it is there already."""
    config = os.path.join(logdir, CONFIG_FILE)
    name_line = f"tensor_name: {_pbtxt_string(tensor_name)}"
    existing = ""
    if os.path.exists(config):
        with open(config, encoding="utf-8") as f:
            existing = f.read()
    if name_line in existing:
        return
    entry = f"embeddings {{\n  {name_line}\n  tensor_path: {_pbtxt_string(tensor_path)}\n"
    if metadata_path:
        entry += f"  metadata_path: {_pbtxt_string(metadata_path)}\n"
    with open(config, "a", encoding="utf-8") as f:
        f.write(entry + "}\n")


def write_embedding(logdir, tag, mat, metadata=None, metadata_header=None, step=0):
    """Writes the points ``mat`` ([n, d]) and their labels under ``logdir`` in the
    projector layout and registers them as tensor 'TAG:STEP'; returns the folder."""
    values = as_array(mat)
    if values.ndim != 2 or values.shape[0] == 0 or values.shape[1] == 0:
        raise ValueError(f"embeddings need a non-empty [points, dims] matrix, got shape "
                         f"{list(values.shape)}")
    if not np.issubdtype(values.dtype, np.number):
        raise TypeError(f"embeddings must be numbers, got dtype {values.dtype}")
    step = int(step)
    relative = f"{step:05d}/{_folder_name(tag)}"
    folder = os.path.join(logdir, *relative.split("/"))
    os.makedirs(folder, exist_ok=True)
    fmt = "%.17g" if values.dtype == np.float64 else "%.9g"
    np.savetxt(os.path.join(folder, "tensors.tsv"), values.astype(np.float64), fmt=fmt,
               delimiter="\t")
    metadata_path = None
    if metadata is not None:
        columns = _metadata_columns(metadata, values.shape[0])
        _write_metadata(os.path.join(folder, "metadata.tsv"), columns, metadata_header)
        metadata_path = relative + "/metadata.tsv"
    _register(logdir, f"{tag}:{step:05d}", relative + "/tensors.tsv", metadata_path)
    return folder
