"""A worked example of skiff in Spark Structured Streaming (docs/streams.md, "Spark"):
click records arrive as JSON files in a folder (Spark's file source); each micro-batch
trains a click-through model with exactly-once updates by batch id (foreachBatch), and the
trained model then scores a DataFrame as an Arrow UDF (mapInArrow). Local mode, 127.0.0.1.

    python examples/spark_online_ctr.py [--files 6] [--rows 2000] [--folder DIR]

Run it twice with the same --folder: the second run finds its checkpoints, so Spark
starts after the files it processed and the trainer after the batches it applied.
"""
import argparse
import json
import os
import sys
import tempfile

import numpy as np
from pyspark.sql import SparkSession

import skiff
from skiff.streams.spark import ForeachBatchTrainer, arrow_predictor, with_column

FIELDS, VOCAB, DIM = 26, 500, 16


class CTR(skiff.nn.Layer):
    """26 categorical fields from one embedding table, an MLP, one logit."""

    def __init__(self):
        super().__init__()
        self.embedding = skiff.nn.Embedding(VOCAB, DIM, sparse=True)
        self.fc1 = skiff.nn.Linear(FIELDS * DIM, 64)
        self.fc2 = skiff.nn.Linear(64, 1)

    def forward(self, ids):
        e = self.embedding(ids)
        return self.fc2(skiff.nn.functional.relu(self.fc1(skiff.reshape(e, [-1, FIELDS * DIM]))))


def loss_fn(model, batch):
    logits = model(skiff.to_tensor(batch["ids"]))
    label = skiff.to_tensor(batch["label"].astype(np.float32).reshape(-1, 1))
    return skiff.nn.functional.binary_cross_entropy_with_logits(logits, label)


def write_clicks(folder, files, rows, seed=0):
    """JSON lines of {"ids": [26 ints], "label": 0/1}: a click when the first field's id
    is a multiple of 3."""
    rng = np.random.default_rng(seed)
    os.makedirs(folder, exist_ok=True)
    for f in range(files):
        ids = rng.integers(0, VOCAB, (rows, FIELDS))
        labels = ids[:, 0] % 3 == 0
        with open(os.path.join(folder, f"clicks-{seed}-{f}.json"), "w") as out:
            for i in range(rows):
                out.write(json.dumps({"ids": ids[i].tolist(), "label": float(labels[i])}) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--files", type=int, default=6)
    p.add_argument("--rows", type=int, default=2000)
    p.add_argument("--folder", default=None, help="where the data and checkpoints go")
    a = p.parse_args()
    folder = a.folder or tempfile.mkdtemp(prefix="skiff-spark-")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    spark = (SparkSession.builder.master("local[2]").appName("skiff-online-ctr")
             .config("spark.ui.enabled", "false")
             .config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")

    source = os.path.join(folder, "clicks")
    if not os.path.isdir(source):
        write_clicks(source, a.files, a.rows)
    skiff.seed(1)
    model = CTR()
    optimizer = skiff.optimizer.Adam(learning_rate=0.003, parameters=model.parameters())
    trainer = ForeachBatchTrainer(model, optimizer, loss_fn, os.path.join(folder, "model"),
                                  ["ids", "label"], batch_size=256)
    stream = (spark.readStream.schema("ids array<bigint>, label float")
              .option("maxFilesPerTrigger", 1).json(source))
    query = (stream.writeStream.foreachBatch(trainer)
             .option("checkpointLocation", os.path.join(folder, "spark"))
             .trigger(availableNow=True).start())
    query.awaitTermination()
    print(f"trained: {trainer.rows} records in {trainer.steps} steps "
          f"(batches up to {trainer.batch_id}; {trainer.skipped} run again and skipped)")

    prefix = os.path.join(folder, "ctr")
    model.eval()
    skiff.jit.save(model, prefix,
                   input_spec=[skiff.static.InputSpec([None, FIELDS], "int64", "ids")])
    write_clicks(os.path.join(folder, "test"), 1, a.rows, seed=99)
    test = spark.read.schema("ids array<bigint>, label float").json(os.path.join(folder, "test"))
    scored = test.mapInArrow(arrow_predictor(prefix, ["ids"], "logit"),
                             with_column(test.schema, "logit")).toArrow()
    labels = scored.column("label").to_numpy()
    accuracy = float(np.mean((scored.column("logit").to_numpy() > 0) == (labels > 0.5)))
    print(f"scored {scored.num_rows} records with the Arrow UDF: accuracy {accuracy:.3f} "
          f"(clicks are {labels.mean():.2f} of them)")
    spark.stop()


if __name__ == "__main__":
    main()
