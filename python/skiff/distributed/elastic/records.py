"""The step records of an elastic job in etcd: /skiff/JOB/done/EPOCH/STEP holds the chunks a
step trained on and the job's step count after it. Rank 0 writes a step's record before any
rank applies the step, so a recorded step is applied by every survivor and an unrecorded one
by no one."""
import json

from .membership import retry

__all__ = ["StepRecords"]


class StepRecords:
    """The records of job ``job`` in ``etcd``."""

    def __init__(self, etcd, job):
        self.etcd = etcd
        self.root = f"/skiff/{job}/done/"

    def key(self, epoch, step):
        return f"{self.root}{epoch}/{step}"

    def write(self, key, chunks, total):
        """Records a step: its ``chunks`` and the job's step count ``total`` after it."""
        value = json.dumps({"chunks": [int(i) for i in chunks], "total": total})
        retry(lambda: self.etcd.put(key, value), "record")

    def exists(self, key):
        return retry(lambda: self.etcd.get(key), "record") is not None

    def chunks_done(self, epoch):
        """The chunks of data epoch ``epoch`` that recorded steps trained on."""
        done = set()
        for kv in self.etcd.get_prefix(f"{self.root}{epoch}/"):
            done.update(json.loads(kv.value)["chunks"])
        return done

    def all(self):
        """Every record as (key, {"chunks": [...], "total": n})."""
        return [(kv.key, json.loads(kv.value)) for kv in self.etcd.get_prefix(self.root)]

    def remove(self, keys):
        for key in keys:
            self.etcd.remove(key)
