"""The autoscaling experiment on this machine, short form (bench/edl_local.py --short): two
real elastic jobs (W3, W5) and a web service under a day's load on the job service's
slots. Every check of its report must hold: the jobs shrink for the service and grow back,
succeed, train every sample exactly once; the service's demand is met and its requests
answered; the simulator predicts the run's utilisation and completion times."""
import json
import os
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


@pytest.mark.skipif(shutil.which("etcd") is None, reason="no etcd binary (etcd-server)")
@pytest.mark.skipif(not os.path.exists("/usr/share/datasets/fashion-mnist"),
                    reason="needs the Debian package dataset-fashion-mnist")
def test_the_autoscaling_experiment_short_form(tmp_path):
    out = tmp_path / "edl"
    done = subprocess.run([sys.executable, os.path.join(REPO, "bench", "edl_local.py"),
                           "--short", "--out", str(out)], capture_output=True, text=True,
                          timeout=600, env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                              p for p in sys.path if p)))
    report_path = out / "report.json"
    assert report_path.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    report = json.loads(report_path.read_text())
    failed = [name for name, ok in report["checks"].items() if not ok]
    summary = {k: v for k, v in report.items() if k != "timeline"}
    assert not failed, f"{failed}\n{json.dumps(summary, indent=1)}"
    assert done.returncode == 0, done.stderr[-3000:]
    assert (out / "utilisation.png").stat().st_size > 10_000
    assert len(report["checks"]) == 11
