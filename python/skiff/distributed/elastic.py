"""Elastic data-parallel training without restarts: workers come and go while the job
goes on, and every sample of an epoch is trained on exactly once.

    from skiff.distributed import elastic
    trainer = elastic.ElasticTrainer(model, optimizer, dataset, batch_size=64,
                                     loss_fn=lambda model, x, y: F.cross_entropy(model(x), y),
                                     min_workers=2, max_workers=4)
    trainer.fit(epochs=3)

Run each worker with the job's etcd in SKIFF_ETCD and its name in SKIFF_JOB_ID (the
launcher's --nnodes MIN:MAX sets them and starts replacements for dead workers); a worker
started later joins the running job.

How it works (docs/distributed.md has the whole story):

- **Membership.** Each worker holds /skiff/JOB/members/ID under a short etcd lease
  (``lease_ttl``) that a thread keeps alive; a killed or stopped worker's key vanishes.
- **Worlds.** The workers of membership epoch E meet under /skiff/JOB/rendezvous/epochE/
  (the list of members is /skiff/JOB/world/E, created once by whoever closes the round).
  A collective that fails (a peer died, or hung past ``step_timeout``) or a newcomer
  seen by rank 0 between steps makes every member go to epoch E+1 in the same process:
  the round closes when every live member has come, or ``grace`` seconds after the first.
- **Steps and data.** An epoch's samples are cut into chunks of ``batch_size`` in a
  shuffled order fixed by the epoch's number. In each step rank r of a world of n trains
  on the r-th chunk not yet done; gradients are averaged weighted by each rank's samples
  (the global batch is n * batch_size, the learning rate stays). Rank 0 records a finished
  step in etcd (/skiff/JOB/done/EPOCH/STEP: its chunks) before any rank applies it: a step
  is applied by everyone or by no one, so no chunk is lost or trained twice. A rank that
  dies returns its chunk simply by not finishing the step.
- **Joining.** After a world forms, the member with the most steps applied broadcasts the
  model, the optimizer state and the data cursor; a newcomer starts at the next step.
- **Checkpoints.** With ``checkpoint_dir``, rank 0 writes the same state atomically at
  the end of each epoch (and every ``checkpoint_every`` steps) as one .skparams file; a
  job whose workers all died resumes from it.
"""
import json
import logging
import os
import pickle
import threading
import time
import uuid

import numpy as np

from .. import _C
from ..tensor.creation import to_tensor, zeros_like
from . import collective
from .env import ParallelEnv
from .lease import KeptLease

__all__ = ["ElasticTrainer"]

_log = logging.getLogger("skiff.distributed.elastic")


class _Membership:
    """This worker's key under /skiff/JOB/members/, under a kept lease; if the lease
    expired (the worker was stopped), the key is put again under a new one and ``lost``
    is set: the worker then joins anew."""

    def __init__(self, etcd, job, ttl):
        self.etcd = etcd
        self.prefix = f"/skiff/{job}/members/"
        self.id = f"{time.time_ns():x}-{uuid.uuid4().hex[:8]}"
        self.lost = threading.Event()
        self.lease = KeptLease(etcd, ttl, on_regranted=self._regranted)
        self._put_key(self.lease.id)

    def _put_key(self, lease):
        self.etcd.put(self.prefix + self.id, str(os.getpid()), lease)

    def _regranted(self, lease):
        self.lost.set()
        self._put_key(lease)

    def put(self, key, value):
        """Puts ``key`` under this worker's lease (renewed first if it expired)."""
        try:
            self.etcd.put(key, value, self.lease.id)
        except collective.CommunicationError:
            raise
        except _C.Error as e:
            if "lease not found" not in str(e):
                raise
            self.etcd.put(key, value, self.lease.renew())

    def live(self):
        return sorted(kv.key[len(self.prefix):] for kv in self.etcd.get_prefix(self.prefix))

    def leave(self):
        self.lease.revoke()


def _retry(fn, what, deadline_s=60.0):
    """fn(), retried while etcd is unreachable (restarting), up to a deadline."""
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            return fn()
        except collective.CommunicationError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"elastic: etcd unreachable for {deadline_s:.0f} s ({what})")
            time.sleep(0.2)


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
        self.root = f"/skiff/{self.job}/"
        self.etcd = _C.EtcdClient(env.etcd, timeout=5.0)
        self.member = _retry(lambda: _Membership(self.etcd, self.job, lease_ttl), "register")
        self.params = [p for p in model.parameters() if not p.stop_gradient]
        self.world_epoch = 0      # the membership epoch of the current world
        self.members = None       # its member ids (None: no world)
        self.epoch, self.step = 0, 0  # data epoch, steps applied in it
        self.total_steps = 0      # steps applied since the job began
        self.done = set()         # chunks of this data epoch already trained on
        self._inflight = None     # a step whose gradients are reduced, not yet applied
        self.reducer = None

    # ---- worlds -------------------------------------------------------------------
    def _latest_world_epoch(self):
        keys = self.etcd.get_prefix(self.root + "world/")
        return max((int(kv.key.rsplit("/", 1)[1]) for kv in keys), default=0)

    def _form_world(self):
        """Joins the next world that takes this worker; returns True when its communicator
        is connected, False when the job has finished."""
        self.reducer = None  # (holds the old communicator: its peers must see it close)
        collective.destroy_process_group()
        self.members = None
        target = max(self.world_epoch, _retry(self._latest_world_epoch, "worlds")) + 1
        waited_since = time.monotonic()
        while True:
            members = _retry(lambda: self._rendezvous(target), "rendezvous")
            if members == "finished":
                return False
            if members is None:  # not enough workers yet
                if time.monotonic() - waited_since > self.wait_timeout:
                    raise TimeoutError(
                        f"elastic job {self.job}: fewer than {self.min_workers} workers for "
                        f"{self.wait_timeout:.0f} s (min_workers); waiting gave up")
                continue
            if self.member.id not in members:
                target += 1
                continue
            rank = members.index(self.member.id)
            try:
                collective.init_parallel_env(epoch=target, rank=rank, world_size=len(members),
                                             timeout=self.connect_timeout)
                if len(members) > 1:
                    _C.set_comm_timeout(0, self.step_timeout)
            except collective.CommunicationError as e:
                _log.info("world %d did not connect: %s", target, e)
                target += 1  # a member died while we met: the next round
                continue
            self.world_epoch, self.members = target, members
            self.rank, self.size = rank, len(members)
            _log.info("world %d: rank %d of %d", target, rank, len(members))
            self.reducer = _C.AsyncAllReduce(0, "sum") if self.size > 1 else None
            return True

    def _rendezvous(self, epoch):
        """The members of world ``epoch``: announces this worker, and closes the round
        once every live member came (or ``grace`` after the first), if enough came."""
        base = f"{self.root}rendezvous/epoch{epoch}/"
        self.member.put(f"{base}came/{self.member.id}", "")
        first = time.monotonic()
        world_key = f"{self.root}world/{epoch}"
        worlds = {int(kv.key.rsplit("/", 1)[1]): kv.value
                  for kv in self.etcd.get_prefix(self.root + "world/")}
        earlier = [e for e in worlds if e < epoch]
        previous = json.loads(worlds[max(earlier)]) if earlier else []
        seen_previous = None
        while True:
            world = self.etcd.get(world_key)
            if world is not None:
                return json.loads(world)
            if self.etcd.get(self.root + "finished") is not None:
                return "finished"
            came = sorted(kv.key.rsplit("/", 1)[1] for kv in self.etcd.get_prefix(base + "came/"))
            live = set(self.member.live())
            # The round closes when every live worker came, or after the grace if some
            # member of the previous world came: when a world fails, its members come
            # within milliseconds (their collectives fail as the others close theirs), so
            # one missing after the grace is dead or hung (its lease expires later) or
            # slow (it joins the next world as a newcomer). Newcomers alone never close a
            # round while the previous world runs: its rank 0 calls them in between steps,
            # so there is never more than one world.
            # (the grace runs from when this worker first saw a member of the previous
            # world come, or from its own arrival when none is alive)
            everyone = live <= set(came)
            if seen_previous is None and any(m in came for m in previous):
                seen_previous = time.monotonic()
            if not any(m in live for m in previous):
                seen_previous = seen_previous or first
            late = seen_previous is not None and time.monotonic() - seen_previous > self.grace
            if len(came) >= self.min_workers and (everyone or late):
                chosen = [m for m in came if m in live][:self.max_workers or None]
                if len(chosen) >= self.min_workers:
                    self.etcd.create(world_key, json.dumps(chosen))
                    continue
            if time.monotonic() - first > self.wait_timeout:
                return None
            time.sleep(0.02)

    # ---- state --------------------------------------------------------------------
    def _state(self):
        return {"model": {k: v.numpy() for k, v in self.model.state_dict().items()},
                "optimizer": {k: (v.numpy() if hasattr(v, "numpy") else v)
                              for k, v in self.optimizer.state_dict().items()},
                "epoch": self.epoch, "step": self.step, "total_steps": self.total_steps}

    def _load_state(self, state):
        self.model.set_state_dict({k: to_tensor(v) for k, v in state["model"].items()})
        self.optimizer.set_state_dict(state["optimizer"])
        self.epoch, self.step = state["epoch"], state["step"]
        self.total_steps = state["total_steps"]

    def _sync_state(self):
        """Everyone takes the state of the member with the most steps applied."""
        if self.size == 1:
            return
        progress = []
        collective.all_gather(progress, to_tensor(np.array([self.total_steps], np.int64)))
        steps = [int(p.numpy()[0]) for p in progress]
        source = steps.index(max(steps))
        state = self._state() if self.rank == source else None
        state = _broadcast_object(state, source)
        if self.rank != source:
            self._load_state(state)

    def _load_done(self):
        prefix = f"{self.root}done/{self.epoch}/"
        self.done = set()
        for kv in self.etcd.get_prefix(prefix):
            self.done.update(json.loads(kv.value)["chunks"])

    def _reconcile(self):
        """Steps recorded in etcd beyond the world's state were applied by workers that
        all died with it: the world resumes from the checkpoint if it is newer than its
        state, and forgets the records beyond (their samples are trained on again).
        Returns True when a live worker outside the world may still hold that state (the
        world must re-form with it first)."""
        records = self.etcd.get_prefix(self.root + "done/")
        newest = max((json.loads(kv.value)["total"] for kv in records), default=0)
        if newest <= self.total_steps:
            return False
        if any(m not in self.members for m in self.member.live()):
            return True  # a live worker outside this world may hold the state: meet it
        if self.rank == 0:
            self._resume_from_checkpoint()
        if self.size > 1:
            self._sync_state()
        _log.warning("the state of steps %d..%d died with their workers: resuming at step %d",
                     self.total_steps + 1, newest, self.total_steps)
        if self.rank == 0:
            for kv in records:
                if json.loads(kv.value)["total"] > self.total_steps:
                    self.etcd.remove(kv.key)
        if self.size > 1:
            collective.barrier()
        return False

    def _checkpoint_path(self):
        return os.path.join(self.checkpoint_dir, "elastic_checkpoint.skparams")

    def _save_checkpoint(self):
        """One .skparams file, written atomically: the model's tensors ("model/NAME"), the
        optimizer's ("optimizer/NAME"), and a JSON record of the data cursor and the
        optimizer's other state ("meta/json", its UTF-8 bytes as int32)."""
        if not self.checkpoint_dir or self.rank != 0:
            return
        os.makedirs(self.checkpoint_dir, exist_ok=True)
        tensors = [("model/" + k, v) for k, v in self.model.state_dict().items()]
        meta = {"epoch": self.epoch, "step": self.step, "total_steps": self.total_steps,
                "optimizer": {}}
        for k, v in self.optimizer.state_dict().items():
            if hasattr(v, "numpy"):
                tensors.append(("optimizer/" + k, v))
            else:
                meta["optimizer"][k] = v
        text = json.dumps(meta, default=float).encode()
        tensors.append(("meta/json", to_tensor(np.frombuffer(text, np.uint8).astype(np.int32))))
        _C.save_params(self._checkpoint_path(), tensors)

    def _resume_from_checkpoint(self):
        if not self.checkpoint_dir or not os.path.exists(self._checkpoint_path()):
            return
        named = dict(_C.load_params(self._checkpoint_path()))
        meta = json.loads(named.pop("meta/json").numpy().astype(np.uint8).tobytes())
        if meta["total_steps"] <= self.total_steps:
            return
        state = {"model": {}, "optimizer": dict(meta["optimizer"]), "epoch": meta["epoch"],
                 "step": meta["step"], "total_steps": meta["total_steps"]}
        for name, t in named.items():
            part, key = name.split("/", 1)
            state[part][key] = t.numpy()
        self._load_state(state)
        _log.info("resumed from %s at step %d", self._checkpoint_path(), self.total_steps)

    # ---- data ---------------------------------------------------------------------
    def _chunks(self):
        n = len(self.dataset)
        order = np.arange(n)
        if self.shuffle:
            np.random.default_rng(self.seed + self.epoch).shuffle(order)
        return [order[i:i + self.batch_size] for i in range(0, n, self.batch_size)]

    def _batch(self, indices):
        items = [self.dataset[int(i)] for i in indices]
        return [to_tensor(np.stack([np.asarray(item[f]) for item in items]))
                for f in range(len(items[0]))]

    # ---- training -----------------------------------------------------------------
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
                        self._sync_state()
                        if _retry(self._reconcile, "reconcile"):
                            time.sleep(self.grace)
                            continue
                    except collective.CommunicationError:
                        continue
                    _retry(self._load_done, "done")
                    need_world = False
                if self.epoch >= epochs:
                    _retry(lambda: self.etcd.put(self.root + "finished", "1"), "finish")
                    return self.total_steps
                chunks = self._chunks()
                pending = [i for i in range(len(chunks)) if i not in self.done]
                if not pending:
                    self._save_checkpoint()
                    self.epoch, self.step, self.done = self.epoch + 1, 0, set()
                    continue
                try:
                    need_world = self._train_step(chunks, pending[:self.size])
                except collective.CommunicationError as e:
                    _log.info("world %d failed: %s", self.world_epoch, e)
                    self._recover_step()
                    need_world = True
        finally:
            self.reducer = None
            collective.destroy_process_group()
            self.member.leave()

    def _train_step(self, chunks, taken):
        """One step of the world; returns whether the world must re-form after it."""
        total = sum(len(chunks[i]) for i in taken)
        mine = taken[self.rank] if self.rank < len(taken) else None
        loss_value = None
        # (gradients are empty here: every step ends by applying or dropping them)
        if mine is not None:
            loss = self.loss_fn(self.model, *self._batch(chunks[mine]))
            loss_value = float(loss.numpy())
            (loss * (len(chunks[mine]) / total)).backward()
        record = f"{self.root}done/{self.epoch}/{self.step}"
        self._inflight = None
        if self.size > 1:
            grads = []
            for p in self.params:
                if p.grad is None:
                    p.grad = zeros_like(p)
                grads.append(p.grad)
            self.reducer.submit(grads)  # the sum of the sample-weighted gradients
            self.reducer.wait()
            self._inflight = (record, taken, chunks, loss_value)
            # Every rank has the reduced gradients once this passes: only then may rank 0
            # record the step, so a step it recorded can be applied by every survivor.
            collective.barrier()
        # Rank 0 records the step in etcd, then tells everyone to apply it, and whether
        # the world re-forms after it for a newcomer.
        reform = np.zeros([1], np.int64)
        if self.rank == 0:
            value = json.dumps({"chunks": [int(i) for i in taken], "total": self.total_steps + 1})
            _retry(lambda: self.etcd.put(record, value), "record")
            # Newcomers wait in the next round (a dead worker's key lingers in members/
            # until its lease expires, but it never comes).
            waiting = f"{self.root}rendezvous/epoch{self.world_epoch + 1}/came/"
            room = self.max_workers is None or self.size < self.max_workers
            reform[0] = room and bool(_retry(lambda: self.etcd.get_prefix(waiting), "newcomers"))
        flag = to_tensor(reform)
        if self.size > 1:
            collective.broadcast(flag, 0)
        self._apply(taken, chunks, loss_value)
        return bool(flag.numpy()[0])

    def _apply(self, taken, chunks, loss_value):
        self._inflight = None
        if self.lr_schedule is not None:
            self.optimizer.set_lr(self.lr_schedule(self.epoch + len(self.done) / len(chunks)))
        self.optimizer.step()
        self.optimizer.clear_grad(set_to_zero=False)
        self.done.update(taken)
        if self.on_step:
            self.on_step({"epoch": self.epoch, "step": self.step, "rank": self.rank,
                          "world_size": self.size, "loss": loss_value,
                          "lr": self.optimizer.get_lr(),
                          "total": self.total_steps + 1, "world": self.world_epoch,
                          "samples": [int(s) for i in taken for s in chunks[i]]})
        self.step += 1
        self.total_steps += 1
        if self.checkpoint_every and self.total_steps % self.checkpoint_every == 0:
            self._save_checkpoint()

    def _recover_step(self):
        """After a failure: applies the step in flight if rank 0 recorded it (this rank
        has its reduced gradients), else drops it."""
        inflight, self._inflight = self._inflight, None
        if inflight is not None:
            record, taken, chunks, loss_value = inflight
            if _retry(lambda: self.etcd.get(record), "record") is not None:
                self._apply(taken, chunks, loss_value)
                return
        self.optimizer.clear_grad(set_to_zero=False)


def _broadcast_object(obj, src):
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
