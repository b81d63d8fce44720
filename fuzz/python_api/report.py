"""The text of a fuzz run's summary: counts, bad errors by kind with examples, crashes and
hangs with their one-line repros, and a sample of clean error messages.

    print(summary_text(tally, sample_errors=30))"""

import time

SOURCE_WIDTH = 300  # longer repros are cut in the summary (the corpus keeps them whole)


def summary_text(tally, sample_errors=0):
    """The summary of tally (a tally.Tally) with sample_errors clean messages at the end."""
    counts = tally.counts
    seconds = time.monotonic() - tally.started
    lines = [f"seed {tally.seed}: {tally.calls} calls and {tally.backward_passes} backward "
             f"passes in {seconds:.0f} s",
             f"  ok {counts['ok']}, clean errors {counts['clean']}, bad errors {counts['bad']}, "
             f"crashes {counts['crash']}, hangs {counts['hang']}, "
             f"fuzzer errors {counts['fuzzer-error']}"]
    lines += _bad_errors(tally)
    lines += _findings(tally)
    if tally.fuzzer_errors:
        lines.append("fuzzer errors (faults of the fuzzer, not of skiff):")
        for error in tally.fuzzer_errors[:5]:
            lines.append(f"  {_short(str(error))}")
    if sample_errors:
        lines.append(f"{sample_errors} clean error messages, drawn at random:")
        for sample in tally.samples(sample_errors):
            lines.append(f"  {sample['target']}: {sample['type']}: "
                         f"{_short(sample['message'], 240)}")
    return "\n".join(lines)


def _bad_errors(tally):
    if not tally.bad_groups:
        return []
    lines = ["bad errors by kind (count, distinct functions):"]
    groups = sorted(tally.bad_groups.items(), key=lambda item: -item[1]["count"])
    for (kind, type_name), group in groups:
        lines.append(f"  {kind} {type_name}: {group['count']} in {len(group['targets'])} "
                     f"functions")
        for example in group["examples"]:
            lines.append(f"    {_short(example['source'])}")
            where = f" [{example['site']}]" if example.get("site") else ""
            lines.append(f"      -> {_short(example['message'], 200)}{where}")
    return lines


def _findings(tally):
    lines = []
    for how in ("crash", "hang"):
        found = [finding for finding in tally.findings if finding["how"] == how]
        if not found:
            continue
        lines.append(f"{how}es (distinct target and site):" if how == "crash" else
                     "hangs (distinct target and site):")
        for finding in found:
            state = _state(finding)
            site = f" at {finding['site']}" if finding["site"] else ""
            lines.append(f"  {finding['target']}: {finding['detail']}{site}, {state}, "
                         f"{finding['duplicates']} more like it")
            lines.append(f"    {_short(finding['source'])}")
            if finding.get("entry"):
                lines.append(f"    -> {finding['entry']}")
    return lines


def _state(finding):
    if "confirmed" not in finding:
        return "not confirmed (run ended first)"
    if not finding["confirmed"]:
        return f"does not happen again in a fresh process ({finding['replay']})"
    return "confirmed alone" if finding["alone"] else "confirmed after the calls before it"


def _short(text, width=SOURCE_WIDTH):
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 3] + "..."
