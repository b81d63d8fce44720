"""The job service as a driver of the autoscaler (autoscaler/): it shows the autoscaler this
machine (one node of the backend's slots), the running jobs, the queued jobs that may start
now and the services' demand, and carries out its actions: admitted jobs start (elastic
ones with the workers it gives them), running elastic jobs are resized through the backend
(their worlds re-form; nothing restarts), and services are granted the pods that have room.

    scaler = Scaler(service, Config(policy="skiff"))
    changed = scaler.tick(time.time())   # job ids whose state or size changed

The queue keeps its order and quotas: the queued jobs shown are, in queue order (priority,
then submission), those within their users' quotas up to the first that does not fit the
free slots, which holds up the ones behind it (the autoscaler may shrink elastic jobs to
start it). The autoscaler runs every ``config.interval`` seconds and at once after an event
(a job submitted, ended or cancelled; a service's demand changed)."""
import math

from .autoscaler import ClusterState, Job, Node, Resources, Service, plan
from .queue import admit

__all__ = ["Scaler", "NODE"]

NODE = "local"


def _worker(spec):
    return Resources(cpu=spec["nproc"] * spec["cpus"])


class Scaler:
    """Runs the autoscaler for ``service`` (a JobService: its store, backend, quotas and
    ``start_job``)."""

    def __init__(self, service, config):
        self.service, self.config = service, config
        self._next = 0.0
        self.dirty = True  # an event happened: plan at the next tick

    def tick(self, now):
        if not self.dirty and now < self._next:
            return []
        self.dirty, self._next = False, now + self.config.interval
        state, jobs = self.state(now)
        actions = plan(state, self.config)
        return self.apply(state, jobs, actions)

    def state(self, now):
        """(the ClusterState, {name: the job row}) the autoscaler sees now."""
        store, slots = self.service.store, self.service.backend.slots()
        rows, shown = {}, []
        used = 0
        for row in store.active():
            spec = row["spec"]
            low, high = spec["workers"]
            workers = row["workers"] or (row["runner"] or {}).get("workers") or low
            used += workers * spec["nproc"] * spec["cpus"]
            rows[str(row["id"])] = row
            shown.append(Job(name=str(row["id"]), min_workers=low, max_workers=high,
                             worker=_worker(spec), workers=workers, placement={NODE: workers},
                             priority=row["priority"], elastic=low < high,
                             submitted=row["submitted"],
                             last_scaled=row["last_scaled"] or row["started"] or now))
        services = [Service(name=s["name"], demand=s["demand"], pods=s["granted"],
                            pod=Resources(cpu=s["cpus"])) for s in store.services()]
        held_by_services = sum(s.pods * s.pod.cpu for s in services)
        used += held_by_services
        for row in admit(store.queued(), store.active(), slots - held_by_services,
                         self.service.quota_of, with_blocked=True):
            spec = row["spec"]
            low, high = spec["workers"]
            rows[str(row["id"])] = row
            shown.append(Job(name=str(row["id"]), min_workers=low, max_workers=high,
                             worker=_worker(spec), priority=row["priority"],
                             elastic=low < high, submitted=row["submitted"]))
        node = Node(NODE, Resources(cpu=slots), Resources(cpu=slots - used))
        return ClusterState(now=now, nodes=(node,), jobs=tuple(shown),
                            services=tuple(services)), rows

    def apply(self, state, rows, actions):
        """Carries out ``actions``: each job's final size at once (one resize per job
        per plan), then the services' grants. Returns the ids of changed jobs."""
        sizes, reasons = {}, {}
        for action in actions:
            sizes[action.job] = sizes.get(action.job, state.job(action.job).workers) + \
                action.delta
            reasons.setdefault(action.job, []).append(action.reason)
        changed = []
        store, backend = self.service.store, self.service.backend
        for name in sorted(sizes, key=lambda n: state.job(n).workers):  # shrinks first
            row, workers, before = rows[name], sizes[name], state.job(name).workers
            if workers == before:
                continue
            reason = "; ".join(dict.fromkeys(reasons[name]))
            if before == 0:
                self.service.start_job(row, workers, reason)
            else:
                record = backend.scale(row["runner"], row, self.service.jobdir(row["id"]),
                                       workers)
                spec = row["spec"]
                store.set_workers(row["id"], workers, workers * spec["nproc"] * spec["cpus"],
                                  record, {"workers": workers, "from": before,
                                           "reason": reason})
            changed.append(row["id"])
        self._grant(state.applied(actions))
        return changed

    def _grant(self, state):
        """Services' pods placed in the room the jobs leave (in name order); pods above
        the demand are released."""
        free = state.nodes[0].free.cpu + sum(s.pods * s.pod.cpu for s in state.services)
        for s in sorted(state.services, key=lambda s: s.name):
            fits = math.floor(free / s.pod.cpu + 1e-9) if s.pod.cpu > 0 else s.demand
            pods = max(0, min(s.demand, fits))
            free -= pods * s.pod.cpu
            if pods != s.pods:
                self.service.store.grant(s.name, pods)
