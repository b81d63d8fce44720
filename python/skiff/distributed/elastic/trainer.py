"""ElasticTrainer: the step loop of an elastic job. It forms a world (rendezvous.py), takes
the state of the member furthest ahead (state.py), then trains step by step on the chunks
not yet done (schedule.py), recording each step in etcd (records.py) before applying it;
a failed collective or a newcomer makes it form the next world."""
import json
import logging
import os
import time

import numpy as np

from ... import _C
from ...tensor.creation import to_tensor, zeros_like
from .. import collective
from ..env import ParallelEnv
from .membership import Membership, retry
from .records import StepRecords
from .rendezvous import Rendezvous
from .schedule import DataSchedule
from .state import JobState

__all__ = ["ElasticTrainer"]

_log = logging.getLogger(__name__)


class ElasticTrainer:
    """Trains ``model`` with ``optimizer`` on ``dataset`` (indexable: dataset[i] is a tuple
    of arrays) with an elastic set of workers. ``loss_fn(model, *batch)`` returns the mean
    loss of a batch. ``on_step(info)`` (optional) is called on every rank after each
    applied step with a dict: epoch, step, total (steps applied since the job began),
    world (the membership epoch), rank, world_size, samples (the indices trained on by the
    whole world in that step), loss (this rank's, or None), lr (the learning rate the
    step applied).

    ``lr_schedule(progress)`` (optional) gives the learning rate of each step from the
    job's progress in epochs when the step begins: the data epoch plus the fraction of its
    chunks already trained on (0 at the start, ``epochs`` at the end). An elastic job takes
    more, smaller steps while it is short of workers, so a schedule by step count would
    not end where it should; one by progress ends on the same rate whatever happened. It
    sets the optimizer's float learning rate (not an LRScheduler's)."""

    def __init__(self, model, optimizer, dataset, batch_size, loss_fn, min_workers=None,
                 max_workers=None, step_timeout=30.0, connect_timeout=3.0, lease_ttl=2,
                 grace=0.5, wait_timeout=300.0, checkpoint_dir=None, checkpoint_every=0,
                 on_step=None, shuffle=True, seed=0, lr_schedule=None):
        env = ParallelEnv()
        if not env.etcd:
            raise RuntimeError("ElasticTrainer: SKIFF_ETCD is not set; start workers with "
                               "python -m skiff.distributed.launch --nnodes MIN:MAX")
        if min_workers is None:
            min_workers = int(os.environ.get("SKIFF_MIN_WORKERS", "1"))
        if max_workers is None and os.environ.get("SKIFF_MAX_WORKERS"):
            max_workers = int(os.environ["SKIFF_MAX_WORKERS"])
        if max_workers is not None and max_workers < min_workers:
            raise ValueError(f"ElasticTrainer: max_workers {max_workers} < min_workers "
                             f"{min_workers}")
        self.model, self.optimizer, self.dataset = model, optimizer, dataset
        self.batch_size, self.loss_fn = int(batch_size), loss_fn
        self.min_workers, self.max_workers = int(min_workers), max_workers
        self.step_timeout, self.grace, self.wait_timeout = step_timeout, grace, wait_timeout
        self.connect_timeout = connect_timeout
        self.checkpoint_dir, self.checkpoint_every = checkpoint_dir, checkpoint_every
        self.on_step, self.shuffle, self.seed = on_step, shuffle, seed
        self.lr_schedule = lr_schedule
        self.env = env
        self.job = env.job_id
        self.etcd = _C.EtcdClient(env.etcd, timeout=5.0)
        self.member = retry(lambda: Membership(self.etcd, self.job, lease_ttl), "register")
        self.params = [p for p in model.parameters() if not p.stop_gradient]
        self.schedule = DataSchedule(dataset, self.batch_size, shuffle, seed)
        self.records = StepRecords(self.etcd, self.job)
        self.rendezvous = Rendezvous(self.etcd, self.job, self.member, self.min_workers,
                                     max_workers, grace, wait_timeout, connect_timeout,
                                     step_timeout)
        self.state = JobState(model, optimizer, self.schedule, self.records, self.member,
                              checkpoint_dir)
        self.world = None         # the world this worker trains in (None: none)
        self._inflight = None     # a step whose gradients are reduced, not yet applied

    @property
    def epoch(self):
        """The data epoch."""
        return self.schedule.epoch

    @property
    def step(self):
        """The steps applied in this data epoch."""
        return self.schedule.step

    @property
    def total_steps(self):
        """The steps applied since the job began."""
        return self.schedule.total_steps

    def fit(self, epochs):
        """Trains until ``epochs`` epochs are done; returns the number of steps applied
        by this worker's job since it began."""
        need_world = True
        try:
            while True:
                if need_world or self.member.lost.is_set():
                    self.member.lost.clear()
                    if not self._form_world():
                        return self.total_steps  # the others finished the job
                    try:
                        self.state.sync(self.world)
                        if retry(lambda: self.state.reconcile(self.world), "reconcile"):
                            time.sleep(self.grace)
                            continue
                    except collective.CommunicationError:
                        continue
                    self.schedule.done = retry(
                        lambda: self.records.chunks_done(self.schedule.epoch), "done")
                    self._announce_world()
                    need_world = False
                if self.schedule.epoch >= epochs:
                    self.rendezvous.finish()
                    return self.total_steps
                chunks = self.schedule.chunks()
                pending = self.schedule.pending(chunks)
                if not pending:
                    self.state.save_checkpoint(self.world)
                    self.schedule.next_epoch()
                    continue
                try:
                    need_world = self._train_step(chunks, pending[:self.world.size])
                except collective.CommunicationError as e:
                    _log.info("world %d failed: %s", self.world.epoch, e)
                    self._recover_step()
                    need_world = True
        finally:
            self.world = None
            collective.destroy_process_group()
            self.member.leave()

    def _form_world(self):
        """Joins the next world that takes this worker; returns True when its communicator
        is connected, False when the job has finished."""
        self.world = None  # (holds the old communicator: its peers must see it close)
        collective.destroy_process_group()
        self.world = self.rendezvous.form()
        return self.world is not None

    def _announce_world(self):
        """Rank 0 records where the new world resumes training (/skiff/JOB/resumed/EPOCH:
        the steps applied since the job began, and the data epoch), for whoever follows
        the job's worlds (the job service shows "world re-formed at step N")."""
        if self.world.rank != 0:
            return
        where = json.dumps({"step": self.total_steps, "data_epoch": self.schedule.epoch})
        retry(lambda: self.etcd.put(f"/skiff/{self.job}/resumed/{self.world.epoch}", where),
              "announce")

    def _train_step(self, chunks, taken):
        """One step of the world; returns whether the world must re-form after it."""
        world = self.world
        total = sum(len(chunks[i]) for i in taken)
        mine = taken[world.rank] if world.rank < len(taken) else None
        loss_value = None
        # (gradients are empty here: every step ends by applying or dropping them)
        if mine is not None:
            loss = self.loss_fn(self.model, *self.schedule.batch(chunks[mine]))
            loss_value = float(loss.numpy())
            (loss * (len(chunks[mine]) / total)).backward()
        record = self.records.key(self.schedule.epoch, self.schedule.step)
        self._inflight = None
        if world.size > 1:
            grads = []
            for p in self.params:
                if p.grad is None:
                    p.grad = zeros_like(p)
                grads.append(p.grad)
            world.reducer.submit(grads)  # the sum of the sample-weighted gradients
            world.reducer.wait()
            self._inflight = (record, taken, chunks, loss_value)
            # Every rank has the reduced gradients once this passes: only then may rank 0
            # record the step, so a step it recorded can be applied by every survivor.
            collective.barrier()
        # Rank 0 records the step in etcd, then tells everyone to apply it, and whether
        # the world re-forms after it for a newcomer.
        reform = np.zeros([1], np.int64)
        if world.rank == 0:
            self.records.write(record, taken, self.total_steps + 1)
            reform[0] = self.rendezvous.newcomers_waiting(world)
        flag = to_tensor(reform)
        if world.size > 1:
            collective.broadcast(flag, 0)
        self._apply(taken, chunks, loss_value)
        return bool(flag.numpy()[0])

    def _apply(self, taken, chunks, loss_value):
        self._inflight = None
        if self.lr_schedule is not None:
            self.optimizer.set_lr(self.lr_schedule(self.schedule.progress(chunks)))
        self.optimizer.step()
        self.optimizer.clear_grad(set_to_zero=False)
        self.schedule.done.update(taken)
        if self.on_step:
            self.on_step({"epoch": self.epoch, "step": self.step, "rank": self.world.rank,
                          "world_size": self.world.size, "loss": loss_value,
                          "lr": self.optimizer.get_lr(),
                          "total": self.total_steps + 1, "world": self.world.epoch,
                          "samples": [int(s) for i in taken for s in chunks[i]]})
        self.schedule.advance()
        if self.checkpoint_every and self.total_steps % self.checkpoint_every == 0:
            self.state.save_checkpoint(self.world)

    def _recover_step(self):
        """After a failure: applies the step in flight if rank 0 recorded it (this rank
        has its reduced gradients), else drops it."""
        inflight, self._inflight = self._inflight, None
        if inflight is not None:
            record, taken, chunks, loss_value = inflight
            if self.records.exists(record):
                self._apply(taken, chunks, loss_value)
                return
        self.optimizer.clear_grad(set_to_zero=False)
