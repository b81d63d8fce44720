"""Checks, from the steps the workers of an elastic job logged (ElasticTrainer's
``on_step`` infos, with "total", "world", "epoch", "step" and "samples"), that every sample
of every epoch went into the final model exactly once: the exactly-once guarantee, audited
from outside the job (tests, the autoscaling experiment).

    steps = steps_in_model(infos)                       # {(epoch, step): samples}
    problems = exactly_once(steps, samples=2000, epochs=3)   # [] when it held"""
import collections

__all__ = ["steps_in_model", "exactly_once"]


def steps_in_model(infos):
    """The steps whose updates are in the final model, {(epoch, step): samples}. A world
    that resumed from total S (the state of the steps after S died with their world) owns
    every total after S: an older world's records from S + 1 on are not in the model (their
    samples were trained on again). Raises ValueError when two ranks of one world logged
    different samples for one step."""
    first = {}  # world -> the first total it applied
    for info in infos:
        first[info["world"]] = min(first.get(info["world"], info["total"]), info["total"])
    kept = {}
    for info in infos:
        if any(w > info["world"] and t <= info["total"] for w, t in first.items()):
            continue  # a later world resumed before this step
        seen = kept.setdefault(info["total"], info)
        if seen["world"] != info["world"] or seen["samples"] != info["samples"]:
            raise ValueError(f"step {info['total']}: the ranks disagree ({seen} vs {info})")
    return {(i["epoch"], i["step"]): i["samples"] for i in kept.values()}


def exactly_once(steps, samples, epochs):
    """What went wrong (a list of strings; empty when every sample 0..samples-1 of every
    epoch 0..epochs-1 was trained on exactly once) in ``steps_in_model``'s answer."""
    per_epoch = collections.defaultdict(collections.Counter)
    for (epoch, _), trained in steps.items():
        per_epoch[epoch].update(trained)
    problems = []
    if sorted(per_epoch) != list(range(epochs)):
        problems.append(f"epochs trained: {sorted(per_epoch)}, expected 0..{epochs - 1}")
    for epoch, counts in sorted(per_epoch.items()):
        missed = [s for s in range(samples) if s not in counts]
        twice = [s for s, c in counts.items() if c != 1]
        extra = [s for s in counts if not 0 <= s < samples]
        if missed:
            problems.append(f"epoch {epoch}: {len(missed)} samples never trained: {missed[:10]}")
        if twice:
            problems.append(f"epoch {epoch}: samples trained more than once: {twice[:10]}")
        if extra:
            problems.append(f"epoch {epoch}: unknown samples: {extra[:10]}")
    return problems
