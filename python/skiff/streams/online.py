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

Data parallel (skiff.distributed initialized, the model in DataParallel): each rank reads
as its own consumer of the group and applies its batch in every step, its gradients
averaged with the others'. A step happens when every rank has a batch; when one rank's
stream ends, all stop, and the batches the others fetched stay unapplied and pending (a
later run applies them). At a checkpoint rank 0 writes every rank's position in one file;
after a barrier, each rank acknowledges its own entries.

Parameter servers (``optimizer`` a skiff.distributed.ps.Trainer in sync mode): each trainer
reads as its own consumer; the trainers step in lockstep, one with no batch taking an empty
step, and the checkpoint is the servers' tables with every trainer's position, committed by
trainer 0 (ps_checkpoint.py). The job ends at the first checkpoint at which every
trainer's stream has ended.
"""
import os
import time

from ..distributed import collective as dist
from ..distributed import ps
from ..framework.io import load, save
from ..tensor.creation import to_tensor
from .ps_checkpoint import PsCheckpoint

__all__ = ["OnlineTrainer"]


class OnlineTrainer:
    """Trains ``model`` with ``optimizer`` (a skiff optimizer, or a ps.Trainer for a model
    on parameter servers) on the batches of ``dataset`` (a skiff.io.StreamDataset),
    ``loss_fn(model, batch) -> loss`` per batch. The checkpoint is
    ``checkpoint_dir``/stream.ckpt; ``writer`` (a skiff.board LogWriter) gets records/s,
    lag, step latency and dead letters every ``log_every`` steps."""

    def __init__(self, model, optimizer, loss_fn, dataset, checkpoint_dir, checkpoint_every=50,
                 writer=None, log_every=50):
        if checkpoint_every < 1:
            raise ValueError(f"checkpoint_every must be at least 1, got {checkpoint_every}")
        self.model, self.optimizer, self.loss_fn = model, optimizer, loss_fn
        self.dataset = dataset
        self.path = os.path.join(checkpoint_dir, "stream.ckpt")
        self.checkpoint_every = checkpoint_every
        self.writer, self.log_every = writer, log_every
        self.steps = self.records = 0  # records: applied by this rank
        self.position = {}
        if isinstance(optimizer, ps.Trainer):
            self.servers = PsCheckpoint(optimizer, checkpoint_dir)
            self.parallel, self.rank, self.world = False, self.servers.rank, self.servers.world
            state = self.servers.restore()
        else:
            self.servers = None
            self.parallel = dist.is_initialized() and dist.get_world_size() > 1
            self.rank = dist.get_rank() if self.parallel else 0
            self.world = dist.get_world_size() if self.parallel else 1
            state = self._restore()
        self.restored = state is not None
        if state is not None:
            self.steps, self.records = int(state["steps"]), int(state["records"][self.rank])
            self.position = dict(state["positions"][self.rank])
            self.dataset.resume = dict(self.position)

    def _restore(self):
        if not os.path.exists(self.path):
            return None
        state = load(self.path)
        if len(state["positions"]) != self.world:
            raise ValueError(f"'{self.path}' holds the positions of {len(state['positions'])} "
                             f"ranks; this job has {self.world}")
        self.model.set_state_dict(state["model"])
        self.optimizer.set_state_dict(state["optimizer"])
        return state

    def checkpoint(self):
        """Writes the checkpoint (rank 0, with every rank's position and records)."""
        positions, records = [self.position], [self.records]
        if self.parallel:
            positions, records = [], []
            dist.all_gather_object(positions, self.position)
            dist.all_gather_object(records, self.records)
        if self.rank == 0:
            save({"model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                  "steps": self.steps, "records": records, "positions": positions},
                 self.path)
        if self.parallel:
            dist.barrier()  # the file is there before any rank acknowledges

    def _next(self, batches, settled):
        """The next batch with records (None at the end); the settling-only batches before
        it go to ``settled``."""
        for batch in batches:
            if len(batch):
                return batch
            settled.append(batch)
        return None

    def _all_have(self, batch):
        if not self.parallel:
            return batch is not None
        have = to_tensor([1 if batch is not None else 0], dtype="int64")
        dist.all_reduce(have, op=dist.ReduceOp.MIN)
        return bool(have.numpy()[0])

    def _apply(self, batch):
        """Forward and backward of ``batch``; the step (ms) is timed from here."""
        loss = self.loss_fn(self.model, batch)
        loss.backward()
        return loss

    def fit(self, max_records=None):
        """Trains until the dataset ends (any rank's; on parameter servers, every
        trainer's) or ``max_records`` records are applied in all (by this rank, counting
        those before a restart); returns them."""
        if self.servers is not None:
            return self._fit_on_servers(max_records)
        unacked = []
        since_checkpoint = 0
        started, logged_records = time.monotonic(), self.records
        batches = iter(self.dataset)
        while max_records is None or self.records < max_records:
            settled = []
            batch = self._next(batches, settled)
            go = self._all_have(batch)
            if go or batch is None:  # settled before a batch that is applied, or at the end
                for s in settled:
                    self.position = s.position
                    unacked += s.ack_ids
            if not go:
                break
            t0 = time.perf_counter()
            loss = self._apply(batch)
            self.optimizer.step()
            self.optimizer.clear_grad()
            step_ms = (time.perf_counter() - t0) * 1e3
            self.steps += 1
            self.records += len(batch)
            self.position = batch.position
            unacked += batch.ack_ids
            since_checkpoint += 1
            if self.writer is not None and self.steps % self.log_every == 0:
                now = time.monotonic()
                self._log(loss, step_ms, (self.records - logged_records) / (now - started))
                started, logged_records = now, self.records
            if since_checkpoint >= self.checkpoint_every:
                self._commit(unacked)
                unacked, since_checkpoint = [], 0
        self._commit(unacked)
        batches.close()
        return self.records

    def _fit_on_servers(self, max_records):
        """fit() on parameter servers: lockstep steps, empty ones for a trainer without a
        batch, until a checkpoint at which every trainer's stream has ended."""
        unacked, ended = [], False
        batches = iter(self.dataset)
        started, logged_records = time.monotonic(), self.records
        while True:
            settled, batch = [], None
            if not ended:
                batch = self._next(batches, settled)
                ended = batch is None or (max_records is not None and
                                          self.records + len(batch) >= max_records)
            for s in settled:
                self.position = s.position
                unacked += s.ack_ids
            t0 = time.perf_counter()
            loss = self._apply(batch) if batch is not None else None
            if batch is not None:
                self.records += len(batch)
                self.position = batch.position
                unacked += batch.ack_ids
            self.steps += 1
            checkpoint = self.steps % self.checkpoint_every == 0
            if checkpoint:  # before the barrier, which tells trainer 0 every part is there
                self.servers.write_position(self.steps, self.position, self.records, ended)
            self.servers.step()
            step_ms = (time.perf_counter() - t0) * 1e3
            if self.writer is not None and loss is not None and self.steps % self.log_every == 0:
                now = time.monotonic()
                self._log(loss, step_ms, (self.records - logged_records) / (now - started))
                started, logged_records = now, self.records
            if checkpoint:
                every_ended = self.servers.commit(self.steps)
                self.dataset.source.ack(unacked)  # after the commit, never before
                unacked = []
                if all(every_ended):
                    break
        batches.close()
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
