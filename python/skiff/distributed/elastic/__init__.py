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

How it works (docs/distributed.md has the whole story), one module each:

- **Membership** (membership.py). Each worker holds /skiff/JOB/members/ID under a short
  etcd lease (``lease_ttl``) that a thread keeps alive; a killed or stopped worker's key
  vanishes.
- **Worlds** (rendezvous.py). The workers of membership epoch E meet under
  /skiff/JOB/rendezvous/epochE/ (the list of members is /skiff/JOB/world/E, created once by
  whoever closes the round). A collective that fails (a peer died, or hung past
  ``step_timeout``) or a newcomer seen by rank 0 between steps makes every member go to
  epoch E+1 in the same process: the round closes when every live member has come, or
  ``grace`` seconds after the first.
- **Steps and data** (schedule.py, records.py, trainer.py). An epoch's samples are cut into
  chunks of ``batch_size`` in a shuffled order fixed by the epoch's number. In each step
  rank r of a world of n trains on the r-th chunk not yet done; gradients are averaged
  weighted by each rank's samples (the global batch is n * batch_size, the learning rate
  stays). Rank 0 records a finished step in etcd (/skiff/JOB/done/EPOCH/STEP: its chunks)
  before any rank applies it: a step is applied by everyone or by no one, so no chunk is
  lost or trained twice. A rank that dies returns its chunk simply by not finishing the
  step.
- **Joining** (state.py). After a world forms, the member with the most steps applied
  broadcasts the model, the optimizer state and the data cursor; a newcomer starts at the
  next step.
- **Checkpoints** (checkpoint.py). With ``checkpoint_dir``, rank 0 writes the same state
  atomically at the end of each epoch (and every ``checkpoint_every`` steps) as one
  .skparams file; a job whose workers all died resumes from it.
"""
from .trainer import ElasticTrainer

__all__ = ["ElasticTrainer"]
