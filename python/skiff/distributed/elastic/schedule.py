"""The data schedule of an elastic job: an epoch's samples in a shuffled order fixed by the
epoch's number, cut into chunks of ``batch_size``, and the cursor (the data epoch, the steps
applied in it and since the job began, the chunks of the epoch already trained on)."""
import numpy as np

from ...tensor.creation import to_tensor

__all__ = ["DataSchedule"]


class DataSchedule:
    """Chunks of ``dataset`` (indexable: dataset[i] is a tuple of arrays) and where the job
    is in them. Each step trains on chunks not yet ``done``; the cursor moves when a step is
    applied (``advance``) and when an epoch is through (``next_epoch``)."""

    def __init__(self, dataset, batch_size, shuffle=True, seed=0):
        self.dataset, self.batch_size = dataset, batch_size
        self.shuffle, self.seed = shuffle, seed
        self.epoch, self.step = 0, 0  # data epoch, steps applied in it
        self.total_steps = 0      # steps applied since the job began
        self.done = set()         # chunks of this data epoch already trained on

    def chunks(self):
        """This epoch's chunks: arrays of sample indices, ``batch_size`` each (the last
        may be shorter)."""
        n = len(self.dataset)
        order = np.arange(n)
        if self.shuffle:
            np.random.default_rng(self.seed + self.epoch).shuffle(order)
        return [order[i:i + self.batch_size] for i in range(0, n, self.batch_size)]

    def pending(self, chunks):
        """The numbers of this epoch's chunks not yet trained on, in order."""
        return [i for i in range(len(chunks)) if i not in self.done]

    def batch(self, indices):
        """The samples at ``indices`` stacked field by field into Tensors."""
        items = [self.dataset[int(i)] for i in indices]
        return [to_tensor(np.stack([np.asarray(item[f]) for item in items]))
                for f in range(len(items[0]))]

    def progress(self, chunks):
        """The job's progress in epochs: the data epoch plus the fraction of its chunks
        already trained on."""
        return self.epoch + len(self.done) / len(chunks)

    def advance(self):
        """Counts a step applied (its chunks are already in ``done``)."""
        self.step += 1
        self.total_steps += 1

    def next_epoch(self):
        self.epoch, self.step, self.done = self.epoch + 1, 0, set()

    def cursor(self):
        """The cursor as a dict: epoch, step, total_steps."""
        return {"epoch": self.epoch, "step": self.step, "total_steps": self.total_steps}

    def set_cursor(self, cursor):
        self.epoch, self.step = cursor["epoch"], cursor["step"]
        self.total_steps = cursor["total_steps"]
