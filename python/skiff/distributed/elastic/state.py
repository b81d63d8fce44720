"""The state an elastic job carries across worlds: the model, the optimizer state and the
data cursor. When a world forms, every member takes the state of the member with the most
steps applied; steps recorded beyond the world's state (their workers all died) are
replaced by the checkpoint if it is newer, and their records forgotten."""
import logging
import os
import pickle

import numpy as np

from ...tensor.creation import to_tensor
from .. import collective
from .checkpoint import load_checkpoint, save_checkpoint

__all__ = ["JobState", "broadcast_object"]

_log = logging.getLogger(__name__)


class JobState:
    """The state of ``model``, ``optimizer`` and ``schedule`` (the data cursor), synced
    within a world, reconciled with the step ``records`` of ``member``'s job, and
    checkpointed in ``checkpoint_dir`` (None: no checkpoints)."""

    def __init__(self, model, optimizer, schedule, records, member, checkpoint_dir=None):
        self.model, self.optimizer, self.schedule = model, optimizer, schedule
        self.records, self.member = records, member
        self.checkpoint_dir = checkpoint_dir

    def snapshot(self):
        """The state as numpy arrays and plain values."""
        return dict(self.schedule.cursor(),
                    model={k: v.numpy() for k, v in self.model.state_dict().items()},
                    optimizer={k: (v.numpy() if hasattr(v, "numpy") else v)
                               for k, v in self.optimizer.state_dict().items()})

    def load(self, state):
        self.model.set_state_dict({k: to_tensor(v) for k, v in state["model"].items()})
        self.optimizer.set_state_dict(state["optimizer"])
        self.schedule.set_cursor(state)

    def sync(self, world):
        """Everyone in ``world`` takes the state of the member with the most steps
        applied."""
        if world.size == 1:
            return
        progress = []
        collective.all_gather(progress,
                              to_tensor(np.array([self.schedule.total_steps], np.int64)))
        steps = [int(p.numpy()[0]) for p in progress]
        source = steps.index(max(steps))
        state = self.snapshot() if world.rank == source else None
        state = broadcast_object(state, source)
        if world.rank != source:
            self.load(state)

    def reconcile(self, world):
        """Steps recorded in etcd beyond the world's state were applied by workers that
        all died with it: the world resumes from the checkpoint if it is newer than its
        state, and forgets the records beyond (their samples are trained on again).
        Returns True when a live worker outside the world may still hold that state (the
        world must re-form with it first)."""
        records = self.records.all()
        newest = max((record["total"] for _, record in records), default=0)
        if newest <= self.schedule.total_steps:
            return False
        if any(m not in world.members for m in self.member.live()):
            return True  # a live worker outside this world may hold the state: meet it
        if world.rank == 0:
            self.resume_from_checkpoint()
        if world.size > 1:
            self.sync(world)
        _log.warning("the state of steps %d..%d died with their workers: resuming at step %d",
                     self.schedule.total_steps + 1, newest, self.schedule.total_steps)
        if world.rank == 0:
            self.records.remove([key for key, record in records
                                 if record["total"] > self.schedule.total_steps])
        if world.size > 1:
            collective.barrier()
        return False

    def checkpoint_path(self):
        return os.path.join(self.checkpoint_dir, "elastic_checkpoint.skparams")

    def save_checkpoint(self, world):
        """Rank 0 writes the checkpoint (atomically), when the job has a checkpoint_dir."""
        if not self.checkpoint_dir or world.rank != 0:
            return
        os.makedirs(self.checkpoint_dir, exist_ok=True)
        save_checkpoint(self.checkpoint_path(), self.model, self.optimizer,
                        self.schedule.cursor())

    def resume_from_checkpoint(self):
        """Takes the checkpoint's state if it is newer than this worker's."""
        if not self.checkpoint_dir:
            return
        state = load_checkpoint(self.checkpoint_path())
        if state is None or state["total_steps"] <= self.schedule.total_steps:
            return
        self.load(state)
        _log.info("resumed from %s at step %d", self.checkpoint_path(),
                  self.schedule.total_steps)


def broadcast_object(obj, src):
    """``obj`` of rank ``src`` on every rank (pickled into an int64 tensor)."""
    if collective.get_rank() == src:
        data = pickle.dumps(obj, protocol=4)
        length = to_tensor(np.array([len(data)], np.int64))
    else:
        length = to_tensor(np.zeros([1], np.int64))
    collective.broadcast(length, src)
    n = int(length.numpy()[0])
    words = (n + 7) // 8
    if collective.get_rank() == src:
        buf = np.zeros(words * 8, np.uint8)
        buf[:n] = np.frombuffer(data, np.uint8)
        payload = to_tensor(buf.view(np.int64))
    else:
        payload = to_tensor(np.zeros([words], np.int64))
    collective.broadcast(payload, src)
    return pickle.loads(payload.numpy().view(np.uint8)[:n].tobytes())
