"""Worlds of an elastic job. The workers of membership epoch E meet in round E
(/skiff/JOB/rendezvous/epochE/came/ID); whoever closes the round creates /skiff/JOB/world/E,
the list of its members, once; the members then connect the communicator of epoch E. There
is never more than one world: newcomers wait in the next round until the running world's
rank 0 calls them between steps."""
import json
import logging
import time

from ... import _C
from .. import collective
from .membership import retry

__all__ = ["Rendezvous", "World"]

_log = logging.getLogger(__name__)


class World:
    """The workers training together: the membership ``epoch``, the ``members`` (ids),
    this worker's ``rank`` among them, the world's ``size``, and the ``reducer`` (the
    asynchronous all-reduce over its communicator; None in a world of one). Dropping the
    World drops the reducer, which holds the communicator."""

    def __init__(self, epoch, members, rank):
        self.epoch, self.members = epoch, members
        self.rank, self.size = rank, len(members)
        self.reducer = _C.AsyncAllReduce(0, "sum") if self.size > 1 else None


class Rendezvous:
    """Forms the worlds of elastic job ``job`` for ``member``: a round closes with
    at least ``min_workers`` (and at most ``max_workers``) when every live worker came, or
    ``grace`` seconds after a member of the previous world came; below ``min_workers`` the
    worker waits up to ``wait_timeout``. A world's communicator connects within
    ``connect_timeout`` and its collectives fail after ``step_timeout``."""

    def __init__(self, etcd, job, member, min_workers, max_workers, grace, wait_timeout,
                 connect_timeout, step_timeout):
        self.etcd, self.member = etcd, member
        self.job, self.root = job, f"/skiff/{job}/"
        self.min_workers, self.max_workers = min_workers, max_workers
        self.grace, self.wait_timeout = grace, wait_timeout
        self.connect_timeout, self.step_timeout = connect_timeout, step_timeout
        self.epoch = 0  # the membership epoch of the last world joined

    def latest_epoch(self):
        """The membership epoch of the newest world the job formed (0: none yet)."""
        keys = self.etcd.get_prefix(self.root + "world/")
        return max((int(kv.key.rsplit("/", 1)[1]) for kv in keys), default=0)

    def form(self):
        """Joins the next world that takes this worker; returns it once its communicator
        is connected, None when the job has finished."""
        target = max(self.epoch, retry(self.latest_epoch, "worlds")) + 1
        waited_since = time.monotonic()
        while True:
            members = retry(lambda: self.members_of(target), "rendezvous")
            if members == "finished":
                return None
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
            self.epoch = target
            _log.info("world %d: rank %d of %d", target, rank, len(members))
            return World(target, members, rank)

    def members_of(self, epoch):
        """The members of world ``epoch``: announces this worker, and closes the round
        once every live member came (or ``grace`` after the first), if enough came.
        Returns None when too few came within ``wait_timeout``, "finished" when the job
        has finished."""
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

    def newcomers_waiting(self, world):
        """Whether newcomers wait in the round after ``world`` and the world has room for
        them (a dead worker's key lingers in members/ until its lease expires, but it never
        comes)."""
        waiting = f"{self.root}rendezvous/epoch{world.epoch + 1}/came/"
        room = self.max_workers is None or world.size < self.max_workers
        return room and bool(retry(lambda: self.etcd.get_prefix(waiting), "newcomers"))

    def finish(self):
        """Marks the job finished: workers still meeting return instead of waiting."""
        retry(lambda: self.etcd.put(self.root + "finished", "1"), "finish")
