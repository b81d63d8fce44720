"""Trainer: one training step of a model on the parameter servers, after the user's
forward and backward."""
from . import client
from .dense import DenseParameters
from .embedding import DistributedEmbedding

__all__ = ["Trainer"]


class Trainer:
    """Drives ``model``: its DistributedEmbedding layers, and its other trainable
    parameters as DenseParameters (tables ``name.0``, ... with ``optimizer`` and
    ``init``). The dense values are pulled from the servers here and after each step.

        trainer = ps.Trainer(model, optimizer={"kind": "sgd", "lr": 0.1})
        for batch in data:
            loss_fn(model(batch.ids), batch.label).backward()
            trainer.step()   # push for step_id, barrier (sync mode), pull dense

    Sync mode numbers the steps from ``first_step``: every trainer of the job must use
    the same numbers, each above the servers' last applied step.

    ``dense_from``: where the dense values start: "servers" (their initializers, ``init``)
    or "trainer0" (trainer 0's model, as Paddle's init_worker: trainer 0 assigns its
    values, every trainer meets it at step first_step - 1, then pulls)."""

    def __init__(self, model, optimizer=None, init=None, name="dense", connection=None,
                 first_step=0, dense_from="servers"):
        self._connection = client.connection(connection)
        if self._connection.mode == "geo":
            raise ValueError("ps.Trainer: geo mode pushes deltas of values trained locally; "
                             "use ps.GeoTrainer(model, k_steps, lr)")
        self.model = model
        self.embeddings = [layer for layer in model.sublayers(include_self=True)
                           if isinstance(layer, DistributedEmbedding)]
        self.dense = DenseParameters(model.parameters(), name, optimizer, init,
                                     self._connection)
        self.step_id = int(first_step)
        if dense_from == "trainer0":
            if self._connection.trainer_id == 0:
                self.dense.assign()
            self._connection.meet(self.step_id - 1)
        elif dense_from != "servers":
            raise ValueError(f"ps.Trainer: dense_from is 'servers' or 'trainer0', got "
                             f"{dense_from!r}")
        self.dense.pull()

    @property
    def connection(self):
        """The ps.Connection this trainer steps on."""
        return self._connection

    def step(self):
        """Pushes the sparse and dense gradients for step_id, waits for the step's
        barrier (sync mode), pulls the dense values, clears the gradients."""
        for embedding in self.embeddings:
            embedding.push(self.step_id)
        self.dense.push(self.step_id)
        self._connection.barrier(self.step_id)
        self.dense.pull()
        self.dense.clear_grad()
        self.step_id += 1

    def save(self, folder):
        """The servers write every table (values and optimizer state) into ``folder``."""
        self._connection.save(folder)

    def load(self, folder):
        """The servers read the tables back from ``folder``; the dense values are pulled.
        In sync mode every trainer calls it before its first step (loading the same folder
        again changes nothing; no step is applied before all trainers reached it)."""
        self._connection.load(folder)
        self.dense.pull()
