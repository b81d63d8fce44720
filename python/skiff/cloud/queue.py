"""The job queue's order and quotas, as pure functions of the queue and the active jobs:
which queued jobs may start now. Queue order is priority (high first), then submission; a
job waits while starting it would pass its user's quota (running jobs, slots), and those do
not hold up other users' jobs; a job that does not fit the free slots holds up the jobs
behind it (no small job overtakes a big one for ever)."""

__all__ = ["Quota", "admit"]


class Quota:
    """What one user may hold at once (None: no bound but the machine's)."""

    def __init__(self, running=None, slots=None):
        self.running, self.slots = running, slots


def admit(queued, active, total_slots, quota_of, with_blocked=False):
    """The queued jobs to start now, in order, given the queue (in start order), the active
    jobs (their ``slots`` held), the slots there are and ``quota_of(user) -> Quota``. With
    ``with_blocked``, the first job that does not fit comes last (the autoscaler may make
    room for it by shrinking elastic jobs)."""
    used = sum(j["slots"] for j in active)
    running, held = {}, {}
    for j in active:
        running[j["user"]] = running.get(j["user"], 0) + 1
        held[j["user"]] = held.get(j["user"], 0) + j["slots"]
    chosen = []
    for j in queued:
        q = quota_of(j["user"])
        user_running, user_slots = running.get(j["user"], 0), held.get(j["user"], 0)
        if (q.running is not None and user_running >= q.running) or (
                q.slots is not None and user_slots + j["slots"] > q.slots):
            continue  # waits for its user's own jobs; others may go
        if used + j["slots"] > total_slots:
            if with_blocked:
                chosen.append(j)
            break
        chosen.append(j)
        used += j["slots"]
        running[j["user"]] = user_running + 1
        held[j["user"]] = user_slots + j["slots"]
    return chosen
