"""OnlineTrainer's metrics in skiff board's event files: records/s, lag, step latency, dead
letters and the loss, read back with TensorBoard's own reader."""
import pathlib
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

import skiff
from skiff.board import LogWriter
from skiff.io import RedisStream, StreamDataset
from skiff.streams import OnlineTrainer

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent / "workers"))
from ctr_stream import SCHEMA, loss_fn, model, produce  # noqa: E402


def test_the_trainer_reports_to_skiff_board(redis_server, tmp_path):
    produce(redis_server.address, "clicks", 3000, bad_every=500)
    net = model()
    optimizer = skiff.optimizer.SGD(learning_rate=0.05, parameters=net.parameters())
    dataset = StreamDataset(RedisStream("clicks", redis_server.address, consumer="t"),
                            schema=SCHEMA, batch_size=100, idle_timeout=0.5)
    writer = LogWriter(str(tmp_path / "logs"))
    trainer = OnlineTrainer(net, optimizer, loss_fn, dataset, str(tmp_path / "ckpt"),
                            writer=writer, log_every=5)
    assert trainer.fit() == 2994
    writer.close()
    events = EventAccumulator(str(tmp_path / "logs"))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    assert {"stream/loss", "stream/records_per_s", "stream/step_ms", "stream/dead_letters",
            "stream/lag"} <= tags, tags
    steps = [e.step for e in events.Scalars("stream/records_per_s")]
    assert steps == list(range(5, trainer.steps + 1, 5))
    assert all(e.value > 0 for e in events.Scalars("stream/records_per_s"))
    assert events.Scalars("stream/dead_letters")[-1].value == 6
