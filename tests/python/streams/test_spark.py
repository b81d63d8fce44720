"""skiff in Spark (local mode, 127.0.0.1): the Arrow UDF gives skiff.jit.load's outputs,
and foreachBatch training applies a micro-batch that Spark runs again after a failure once."""
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pytest
from pyspark.sql import SparkSession
from pyspark.sql.utils import StreamingQueryException

import skiff
from skiff.streams.spark import ForeachBatchTrainer, arrow_predictor, with_column

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "workers"))
from ctr_stream import FIELDS, loss_fn, model, records  # noqa: E402


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("skiff-streams-test")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_the_arrow_udf_gives_the_outputs_of_jit_load(spark, tmp_path):
    net = model()
    prefix = str(tmp_path / "ctr")
    skiff.jit.save(net, prefix, input_spec=[skiff.static.InputSpec([None, FIELDS], "int64", "ids")])
    ids, _ = records(3000)
    table = pa.table({"rid": np.arange(len(ids)), "ids": list(ids)})
    df = spark.createDataFrame(table).repartition(3)
    scored = df.mapInArrow(arrow_predictor(prefix, ["ids"], "score"),
                           with_column(df.schema, "score")).toArrow()
    order = np.argsort(scored.column("rid").to_numpy())
    got = scored.column("score").to_numpy()[order]
    expected = skiff.jit.load(prefix)(skiff.to_tensor(ids)).numpy().reshape(-1)
    np.testing.assert_array_equal(got, expected.astype(np.float32))


def write_files(folder, n_files, rows):
    ids, labels = records(n_files * rows)
    folder.mkdir()
    for f in range(n_files):
        with open(folder / f"part-{f}.json", "w") as out:
            for i in range(f * rows, (f + 1) * rows):
                out.write(json.dumps({"ids": ids[i].tolist(), "label": float(labels[i])}) + "\n")
        os.utime(folder / f"part-{f}.json", (1_700_000_000 + f, 1_700_000_000 + f))


def trainer_for(folder):
    net = model()
    optimizer = skiff.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    return ForeachBatchTrainer(net, optimizer, loss_fn, str(folder), ["ids", "label"],
                               batch_size=100)


class FailOnceAfter:
    """foreachBatch that fails once, after the trainer applied and checkpointed batch 1:
    Spark has not committed the batch, so the restarted query runs it again."""

    def __init__(self, trainer):
        self.trainer, self.failed = trainer, False

    def __call__(self, df, batch_id):
        self.trainer(df, batch_id)
        if batch_id == 1 and not self.failed:
            self.failed = True
            raise RuntimeError("killed after checkpointing batch 1")


def test_foreach_batch_applies_a_batch_spark_runs_again_once(spark, tmp_path):
    source = tmp_path / "source"
    write_files(source, 3, 300)
    schema = "ids array<bigint>, label float"

    reference = trainer_for(tmp_path / "reference")
    for i in range(3):
        reference(spark.read.schema(schema).json(str(source / f"part-{i}.json")), i)

    def run(foreach):
        stream = spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).json(str(source))
        query = (stream.writeStream.foreachBatch(foreach)
                 .option("checkpointLocation", str(tmp_path / "spark-checkpoint"))
                 .trigger(availableNow=True).start())
        query.awaitTermination(timeout=300)

    first = FailOnceAfter(trainer_for(tmp_path / "trainer"))
    with pytest.raises(StreamingQueryException, match="killed after checkpointing batch 1"):
        run(first)
    assert first.trainer.batch_id == 1
    restarted = trainer_for(tmp_path / "trainer")  # a new process would load the same
    run(restarted)
    assert restarted.skipped == 1 and restarted.batch_id == 2
    assert restarted.rows == reference.rows == 900
    want = reference.model.state_dict()
    for name, value in restarted.model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), want[name].numpy(), err_msg=name)


def test_the_worked_example_trains_and_scores(tmp_path):
    example = HERE.parents[2] / "examples" / "spark_online_ctr.py"
    run = subprocess.run([sys.executable, str(example), "--files", "2", "--rows", "300",
                          "--folder", str(tmp_path)], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "trained: 600 records in 4 steps" in run.stdout, run.stdout
    assert "scored 300 records with the Arrow UDF" in run.stdout, run.stdout
