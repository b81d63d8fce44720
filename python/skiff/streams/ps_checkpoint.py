"""The checkpoints of an OnlineTrainer whose model lives on parameter servers (a
skiff.distributed.ps.Trainer in sync mode): the servers' tables and every trainer's stream
position, committed together.

The trainers step in lockstep (the servers' barrier of each step); a trainer with no batch
takes an empty step (it pushes nothing: zeros in the step's average). Every
``checkpoint_every`` steps:

1. each trainer writes its position (and records applied, and whether its stream ended)
   to ``positions/<steps>.<trainer>`` before the step's barrier, so that once the barrier
   is met every trainer's file is on disk;
2. trainer 0, after the barrier (no push of the next step is applied before it pushes),
   has the servers save every table into ``tables-<steps>``, then writes ``stream.ckpt``
   naming that folder with every trainer's position, replacing the file atomically: the
   commit;
3. the trainers meet again, then each acknowledges the entries of its steps; the job ends
   when the checkpoint says every trainer's stream has ended.

On start, trainer 0 has the servers load the tables of the last commit (rolling back steps
applied after it) and every trainer meets it at a step after the last one the servers
applied, so nothing a killed trainer pushed and never saw applied is applied. Each trainer
then reads its stream from its position in the commit.
"""
import glob
import os
import shutil

from ..distributed import ps
from ..framework.io import load, save

__all__ = ["PsCheckpoint"]


class PsCheckpoint:
    """The commit protocol above for ``trainer`` (a ps.Trainer) in ``directory`` (a path
    the servers can write to as well)."""

    def __init__(self, trainer, directory):
        if not isinstance(trainer, ps.Trainer):
            raise TypeError(f"PsCheckpoint needs a ps.Trainer, got {type(trainer).__name__}")
        self.trainer, self.connection = trainer, trainer.connection
        if self.connection.mode != "sync":
            raise ValueError(f"online training on parameter servers needs sync mode (every "
                             f"step's pushes applied together with its positions); this "
                             f"job's mode is {self.connection.mode!r}")
        self.rank, self.world = self.connection.trainer_id, self.connection.trainers
        self.directory = os.path.abspath(directory)
        self.path = os.path.join(self.directory, "stream.ckpt")
        self.next_id = None  # the servers' step id of this trainer's next step

    def restore(self):
        """Meets every trainer after trainer 0 loaded the last commit's tables; returns the
        commit's state (dict of steps, positions, records, ended, tables) or None."""
        applied = max(p["applied_step"] for p in self.connection.progress())
        # A killed trainer may have pushed (and met) one step past `applied`; the next
        # meeting is after it, and the servers drop what that step holds.
        meeting = max(applied, -2) + 2
        state = None
        if os.path.exists(self.path):
            state = load(self.path)
            if len(state["positions"]) != self.world:
                raise ValueError(f"'{self.path}' holds the positions of "
                                 f"{len(state['positions'])} trainers; this job has "
                                 f"{self.world}")
            if self.rank == 0:
                self.connection.load(os.path.join(self.directory, state["tables"]))
        self.connection.meet(meeting)
        self.trainer.dense.pull()
        self.next_id = meeting + 1
        return state

    def step(self):
        """The trainer's step (push, barrier, pull) under the next id."""
        self.trainer.step_id = self.next_id
        self.trainer.step()
        self.next_id += 1

    def write_position(self, steps, position, records, ended):
        """This trainer's part of the checkpoint after step ``steps``; before its barrier."""
        save({"position": dict(position), "records": int(records), "ended": bool(ended)},
             self._position_path(steps, self.rank))

    def commit(self, steps):
        """After step ``steps``' barrier: trainer 0 saves the tables and writes the commit;
        returns once every trainer knows it is written, with the commit's ``ended`` flags
        (the stream of each trainer ended)."""
        if self.rank == 0:
            tables = f"tables-{steps}"
            os.makedirs(os.path.join(self.directory, tables), exist_ok=True)
            self.connection.save(os.path.join(self.directory, tables))
            parts = [load(self._position_path(steps, r)) for r in range(self.world)]
            save({"steps": steps, "tables": tables,
                  "positions": [p["position"] for p in parts],
                  "records": [p["records"] for p in parts],
                  "ended": [p["ended"] for p in parts]}, self.path)
            self._remove_older(steps, tables)
        self.connection.meet(self.next_id)
        self.next_id += 1
        return load(self.path)["ended"]

    def _position_path(self, steps, rank):
        return os.path.join(self.directory, "positions", f"{steps}.{rank}")

    def _remove_older(self, steps, tables):
        for folder in glob.glob(os.path.join(self.directory, "tables-*")):
            if os.path.basename(folder) != tables:
                shutil.rmtree(folder, ignore_errors=True)
        for path in glob.glob(os.path.join(self.directory, "positions", "*.*")):
            name = os.path.basename(path)
            if name.split(".")[0].isdigit() and int(name.split(".")[0]) <= steps:
                os.remove(path)
