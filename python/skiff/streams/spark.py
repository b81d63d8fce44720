"""skiff in Spark (PyPI pyspark with pyarrow; docs/streams.md, "Spark"): a model as an
Arrow UDF for ``DataFrame.mapInArrow``, and online training through Structured
Streaming's ``foreachBatch`` with exactly-once updates by batch id.

    scored = df.mapInArrow(arrow_predictor("model", ["ids"], "score"),
                           with_column(df.schema, "score"))
    trainer = ForeachBatchTrainer(model, optimizer, loss_fn, "ckpt/", ["ids", "label"])
    stream.writeStream.foreachBatch(trainer).option("checkpointLocation", ...).start()

Importing this module needs pyspark and pyarrow; ``import skiff.streams`` does not.
"""
import os

import numpy as np
import pyarrow as pa
from pyspark.sql import types as T

from ..framework.io import load, save
from ..jit import load as jit_load
from ..tensor.creation import to_tensor

__all__ = ["ForeachBatchTrainer", "arrow_predictor", "columns_as_arrays", "with_column"]

_models = {}  # path -> loaded layer: one load per Python worker process


def _model(path):
    net = _models.get(path)
    if net is None:
        net = _models[path] = jit_load(path)
    return net


def columns_as_arrays(batch, columns):
    """{column: numpy array} of an Arrow RecordBatch or Table: a numeric column as a
    vector, a column of equal-length lists as a matrix (its values taken without a copy
    where Arrow allows)."""
    out = {}
    for name in columns:
        col = batch.column(name)
        if isinstance(col, pa.ChunkedArray):
            col = col.combine_chunks()
        if col.null_count:
            raise ValueError(f"column '{name}' has {col.null_count} nulls")
        if pa.types.is_list(col.type) or pa.types.is_large_list(col.type) \
                or pa.types.is_fixed_size_list(col.type):
            values = col.flatten().to_numpy(zero_copy_only=False)
            width = values.size // max(len(col), 1)
            if width * len(col) != values.size:
                raise ValueError(f"column '{name}': lists of different lengths")
            out[name] = values.reshape(len(col), width)
        else:
            out[name] = col.to_numpy(zero_copy_only=False)
    return out


def with_column(schema, name, data_type=None):
    """``schema`` (a Spark StructType) with a float column ``name`` added: the schema
    mapInArrow gets for ``arrow_predictor``'s output (``data_type``: another Spark type,
    e.g. ArrayType(FloatType()) for a model with several outputs per row)."""
    return T.StructType([*schema.fields, T.StructField(name, data_type or T.FloatType())])


def arrow_predictor(model_path, input_columns, output_column="prediction"):
    """A function for ``DataFrame.mapInArrow``: each Arrow batch's ``input_columns`` (one
    array column, or numeric columns stacked as features) go through the program
    ``skiff.jit.load(model_path)`` (loaded once per Python worker) and come back with
    ``output_column`` appended: float32, a list per row when the model gives several."""
    columns = list(input_columns)

    def predict(batches):
        net = _model(model_path)
        for batch in batches:
            arrays = columns_as_arrays(batch, columns)
            x = arrays[columns[0]] if len(columns) == 1 else np.stack(
                [arrays[c] for c in columns], axis=1)
            y = np.asarray(net(to_tensor(np.ascontiguousarray(x))).numpy(), dtype=np.float32)
            y = y.reshape(len(batch), -1)
            out = (pa.array(y[:, 0]) if y.shape[1] == 1 else
                   pa.FixedSizeListArray.from_arrays(pa.array(y.reshape(-1)), y.shape[1]))
            if isinstance(out.type, pa.FixedSizeListType):
                out = out.cast(pa.list_(pa.float32()))
            yield pa.RecordBatch.from_arrays([*batch.columns, out],
                                             names=[*batch.schema.names, output_column])
    return predict


class ForeachBatchTrainer:
    """For ``DataStreamWriter.foreachBatch``: trains ``model`` on each micro-batch
    (``columns`` as numpy arrays, in steps of ``batch_size`` rows,
    ``loss_fn(model, {column: array}) -> loss``) and then writes one checkpoint (model,
    optimizer, the batch id) replaced atomically. A batch id at or before the
    checkpoint's, which Spark runs again after a failure, is skipped: each micro-batch is
    applied exactly once, and a restarted trainer resumes from its checkpoint."""

    def __init__(self, model, optimizer, loss_fn, checkpoint_dir, columns, batch_size=512):
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.columns, self.batch_size = list(columns), batch_size
        self.path = os.path.join(checkpoint_dir, "foreach_batch.ckpt")
        self.batch_id, self.rows, self.steps, self.skipped = None, 0, 0, 0
        if os.path.exists(self.path):
            state = load(self.path)
            model.set_state_dict(state["model"])
            optimizer.set_state_dict(state["optimizer"])
            self.batch_id = int(state["batch_id"])
            self.rows, self.steps = int(state["rows"]), int(state["steps"])

    def __call__(self, batch_df, batch_id):
        if self.batch_id is not None and batch_id <= self.batch_id:
            self.skipped += 1
            return
        table = batch_df.select(*self.columns).toArrow()
        arrays = columns_as_arrays(table, self.columns)
        n = table.num_rows
        for start in range(0, n, self.batch_size):
            chunk = {k: v[start:start + self.batch_size] for k, v in arrays.items()}
            loss = self.loss_fn(self.model, chunk)
            loss.backward()
            self.optimizer.step()
            self.optimizer.clear_grad()
            self.steps += 1
        self.batch_id, self.rows = batch_id, self.rows + n
        save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
              "batch_id": batch_id, "rows": self.rows, "steps": self.steps}, self.path)
