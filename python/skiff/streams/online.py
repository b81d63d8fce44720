"""OnlineTrainer: a model trained from a stream with exactly-once updates.

What is exactly-once: every record of the stream is in exactly one optimizer step of the
model the trainer ends with (and of every checkpoint it writes), however often the trainer
is killed and restarted; a record that does not decode is in none and is in the dead-letter
stream once. The protocol:

1. A step applies one StreamBatch (forward, backward, optimizer step).
2. Every ``checkpoint_every`` steps (and at the end) the trainer writes, in one file
   replaced atomically, the model's and optimizer's state, the batch's position and the
   counts of steps and records applied.
3. Only then does it acknowledge the stream entries the checkpointed steps settled.

On start it loads the checkpoint if there is one and reads the stream from its position:
entries acknowledged are never read again, and this consumer's pending entries before the
position (applied, their acknowledgement lost in the crash) are acknowledged without being
applied again; those after it are replayed in their order. Steps after the last checkpoint
are lost with the crash and redone from the same records in the same batches, so a
restarted run ends with the parameters of a run that was never stopped.
"""
import os
import time

from ..framework.io import load, save

__all__ = ["OnlineTrainer"]


class OnlineTrainer:
    """Trains ``model`` with ``optimizer`` on the batches of ``dataset`` (a
    skiff.io.StreamDataset), ``loss_fn(model, batch) -> loss`` per batch. The checkpoint
    is ``checkpoint_dir``/stream.ckpt; ``writer`` (a skiff.board LogWriter) gets
    records/s, lag, step latency and dead letters every ``log_every`` steps."""

    def __init__(self, model, optimizer, loss_fn, dataset, checkpoint_dir, checkpoint_every=50,
                 writer=None, log_every=50):
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be at least 1, got {checkpoint_every}")
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.dataset = dataset
        self.path = os.path.join(checkpoint_dir, "stream.ckpt")
        self.checkpoint_every = checkpoint_every
        self.writer, self.log_every = writer, log_every
        self.steps = self.records = 0
        self.position = {}
        self.restored = self._restore()

    def _restore(self):
        if not os.path.exists(self.path):
            return False
        state = load(self.path)
        self.model.set_state_dict(state["model"])
        self.optimizer.set_state_dict(state["optimizer"])
        self.steps, self.records = int(state["steps"]), int(state["records"])
        self.position = dict(state["position"])
        self.dataset.resume = dict(self.position)
        return True

    def checkpoint(self):
        save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
              "steps": self.steps, "records": self.records, "position": self.position},
             self.path)

    def fit(self, max_records=None):
        """Trains until the dataset ends or ``max_records`` records are applied in all
        (counting those before a restart); returns the records applied in all."""
        unacked = []
        since_checkpoint = 0
        started, logged_records = time.monotonic(), self.records
        for batch in self.dataset:
            if len(batch):
                t0 = time.perf_counter()
                loss = self.loss_fn(self.model, batch)
                loss.backward()
                self.optimizer.step()
                self.optimizer.clear_grad()
                step_ms = (time.perf_counter() - t0) * 1e3
                self.steps += 1
                self.records += len(batch)
                since_checkpoint += 1
                if self.writer is not None and self.steps % self.log_every == 0:
                    now = time.monotonic()
                    self._log(loss, step_ms, (self.records - logged_records) / (now - started))
                    started, logged_records = now, self.records
            self.position = batch.position
            unacked += batch.ack_ids
            if since_checkpoint >= self.checkpoint_every:
                self._commit(unacked)
                unacked, since_checkpoint = [], 0
            if max_records is not None and self.records >= max_records:
                break
        self._commit(unacked)
        return self.records

    def _commit(self, unacked):
        self.checkpoint()
        self.dataset.source.ack(unacked)  # after the checkpoint, never before

    def _log(self, loss, step_ms, records_per_s):
        w = self.writer
        w.add_scalar("stream/loss", float(loss.numpy()), self.steps)
        w.add_scalar("stream/records_per_s", records_per_s, self.steps)
        w.add_scalar("stream/step_ms", step_ms, self.steps)
        w.add_scalar("stream/dead_letters", self.dataset.stats["dead_letters"], self.steps)
        lag = self.dataset.source.lag()
        if lag is not None:
            w.add_scalar("stream/lag", lag, self.steps)
