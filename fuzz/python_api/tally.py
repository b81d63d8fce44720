"""What a fuzz run found: counts per outcome, bad errors grouped by kind with examples,
crashes and hangs (confirmed in a fresh process and written to the corpus), and a sample of
clean error messages. Workers report to one Tally from several threads.

    tally = Tally(seed=1, package_dir=..., out_dir=..., call_timeout=10.0, deadline=...)
    ...                              # Runner calls record_end / record_death
    print(report.summary_text(tally, sample_errors=30))"""

import json
import random
import threading
import time

import calls
import corpus
import crashes
import minimize

EXAMPLES = 3  # examples kept per bad-error group: the shortest, from distinct targets
SAMPLE_POOL = 2000  # clean messages kept (reservoir) for --sample-errors
CONFIRM_FACTOR = 3  # a hang is confirmed under this many times the per-call timeout
MINIMIZE_RUNS = {"crash": 16, "hang": 4}  # fresh processes spent shortening a finding


class Tally:
    """Counts and findings of one run; thread-safe."""

    def __init__(self, seed, package_dir, out_dir, call_timeout, deadline, log_path=None):
        self.seed = seed
        self.deadline = deadline  # time.monotonic() after which nothing more is confirmed
        self.package_dir = package_dir
        self.out_dir = out_dir
        self.call_timeout = call_timeout
        self.started = time.monotonic()
        self.counts = {"ok": 0, "clean": 0, "bad": 0, "crash": 0, "hang": 0,
                       "fuzzer-error": 0}
        self.calls = 0
        self.backward_passes = 0
        self.bad_groups = {}  # (kind, type) -> {"count", "targets", "examples"}
        self.findings = []  # confirmed and unconfirmed crashes and hangs
        self.fuzzer_errors = []
        self._sites = {}  # (target, how, site) -> finding, for duplicates
        self._samples = []
        self._clean_seen = 0
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._log = open(log_path, "a") if log_path else None

    def record_end(self, start, end):
        """A call (or its backward pass) that returned or raised; start is its start event."""
        status = end["status"]
        with self._lock:
            self.counts[status] = self.counts.get(status, 0) + 1
            if start is None or start.get("phase") == 1:
                self.calls += 1
            else:
                self.backward_passes += 1
            if status == "bad":
                self._add_bad(start, end)
            elif status == "clean":
                self._add_sample(start, end)
            elif status == "fuzzer-error":
                self.fuzzer_errors.append(end)

    def record_death(self, start, how, detail, stderr, earlier):
        """The call of start event crashed the child or hung ("crash"/"hang", detail: signal
        or time); confirms it in a fresh process unless its site is already known or the
        run's time is up. A crash that does not happen alone is tried after the calls the
        child made before it (earlier start events)."""
        site = crashes.parse_site(stderr, self.package_dir)
        key = (start["t"], how, site)
        with self._lock:
            self.counts[how] += 1
            self.calls += start.get("phase") == 1
            known = self._sites.get(key)
            if known is not None:
                known["duplicates"] += 1
                return
            finding = {"target": start["t"], "how": how, "detail": detail, "site": site,
                       "source": start["source"], "index": start["i"], "duplicates": 0,
                       "stderr": stderr[-1500:]}
            self._sites[key] = finding
            self.findings.append(finding)
        if time.monotonic() > self.deadline:
            return
        earlier_sources = _last_per_call(earlier) if how == "crash" else []
        program, result = crashes.confirm(start["source"], earlier_sources,
                                          self.call_timeout * CONFIRM_FACTOR)
        recipe = start.get("recipe") if program == start["source"] else None
        if recipe is not None and time.monotonic() < self.deadline:
            recipe, program = minimize.minimize(
                recipe, start["kind"], how, _wrap(start), self.call_timeout,
                MINIMIZE_RUNS[how])
        with self._lock:
            finding["confirmed"] = program is not None
            finding["alone"] = recipe is not None
            finding["replay"] = f"{result['outcome']} {result['detail']}".strip()
            if program is not None:
                finding["source"] = program
                entry = {"target": start["t"], "source": program,
                         "seen": crashes.seen_text(result), "site": site or None,
                         "found": f"fuzz seed {self.seed} call {start['i']}", "recipe": recipe}
                path = self.out_dir / f"{corpus.entry_id(program)}.json"
                finding["entry"] = str(path)
                if not path.exists():
                    corpus.write_entry(self.out_dir, entry)
            self._write_log({"finding": {k: v for k, v in finding.items() if k != "stderr"}})

    def record_fuzzer_error(self, index, how, detail, stderr):
        """The child died or stuck outside any call: a fault of the fuzzer's."""
        with self._lock:
            self.counts["fuzzer-error"] += 1
            self.fuzzer_errors.append({"i": index, "how": how, "detail": detail,
                                       "message": stderr[-500:]})

    def failed(self, strict):
        """Whether the run should exit nonzero: a confirmed crash or hang; with strict also
        unconfirmed ones, bad errors and the fuzzer's own errors."""
        if any(finding.get("confirmed") for finding in self.findings):
            return True
        return strict and bool(self.findings or self.counts["bad"] or self.fuzzer_errors)

    def samples(self, count):
        """count clean errors drawn at random from those seen."""
        pool = list(self._samples)
        self._random.shuffle(pool)
        return pool[:count]

    def _add_bad(self, start, end):
        group = self.bad_groups.setdefault((end["kind"], end["type"]),
                                           {"count": 0, "targets": set(), "examples": []})
        group["count"] += 1
        target = start["t"] if start else "?"
        group["targets"].add(target)
        _keep_shortest(group["examples"], {"target": target, "source": start["source"],
                                           "message": end["message"], "site": end.get("site")})
        self._write_log({"bad": {"target": target, "source": start["source"],
                                 "kind": end["kind"], "type": end["type"],
                                 "message": end["message"], "site": end.get("site")}})

    def _add_sample(self, start, end):
        self._clean_seen += 1
        sample = {"target": start["t"], "type": end["type"], "message": end["message"]}
        if len(self._samples) < SAMPLE_POOL:
            self._samples.append(sample)
        else:
            slot = self._random.randrange(self._clean_seen)
            if slot < SAMPLE_POOL:
                self._samples[slot] = sample

    def _write_log(self, record):
        if self._log is not None:
            self._log.write(json.dumps(record) + "\n")
            self._log.flush()


def _keep_shortest(examples, example):
    """Keeps in examples the EXAMPLES shortest repros seen, from distinct targets."""
    same = [kept for kept in examples if kept["target"] == example["target"]]
    if same:
        if len(example["source"]) < len(same[0]["source"]):
            examples[examples.index(same[0])] = example
        return
    if len(examples) < EXAMPLES:
        examples.append(example)
        return
    longest = max(examples, key=lambda kept: len(kept["source"]))
    if len(example["source"]) < len(longest["source"]):
        examples[examples.index(longest)] = example


def _wrap(start):
    """The program around a call's source: "{}", or "y = {}; y.sum().backward()" for the
    backward pass (phase 2) whose source start holds."""
    if start.get("phase") != 2:
        return "{}"
    prefix = f"y = {calls.source(start['recipe'], start['kind'])}; "
    return "y = {}; " + start["source"][len(prefix):]


def _last_per_call(starts):
    """The sources of the earlier start events, the last one of each call (a backward pass's
    source makes its call again)."""
    by_index = {}
    for event in starts:
        by_index[event["i"]] = event["source"]
    return list(by_index.values())
