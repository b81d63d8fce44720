"""bench/records.py: a run's record written with the machine it ran on, and a later run on
the same kind of CPU compared with it (a ratio that fell by more than 10% is flagged);
records of another kind of CPU are not compared."""
import json
import pathlib
import sys

BENCH = pathlib.Path(__file__).resolve().parents[3] / "bench"
sys.path.insert(0, str(BENCH))
import records  # noqa: E402


def rows(ratio_w1, ratio_w2):
    return [{"workload": "W1", "implementation": "PyTorch eager", "time": 70.0,
             "unit": "ms", "ratio": ratio_w1},
            {"workload": "W2", "implementation": "PyTorch eager", "time": 3.0, "unit": "ms",
             "ratio": ratio_w2},
            {"workload": "W2", "implementation": "skiff program", "time": 2.0, "unit": "ms",
             "ratio": None}]


def test_a_run_is_kept_and_compared_with_the_last_on_this_cpu(tmp_path, capsys):
    first, path = records.write("compare", rows(17.0, 1.5), [0.5, 1.0], folder=tmp_path)
    saved = json.loads(pathlib.Path(path).read_text())
    assert saved["machine"]["cpu_kind"] == first["machine"]["cpu_kind"]
    assert saved["machine"]["cores"] >= 1 and saved["load"] == {"min": 0.5, "max": 1.0}
    assert [r["ratio"] for r in saved["rows"]] == [17.0, 1.5, None]

    # A record of another kind of CPU, newer: not what a run here is compared with.
    other = dict(saved, machine=dict(saved["machine"], cpu_kind="another CPU [avx2]"),
                 rows=rows(1.0, 1.0))
    (tmp_path / "compare-29990101T000000Z.json").write_text(json.dumps(other))

    records.report("compare", rows(17.5, 1.2), [1.0], folder=tmp_path)
    out = capsys.readouterr().out
    assert "17.00 ->  17.50" in out and "REGRESSION" not in out.split("17.50")[1].split("\n")[0]
    assert "1.50 ->   1.20  REGRESSION" in out
    assert "skiff program" not in out  # a row without a ratio is not compared


def test_the_first_run_on_a_cpu_says_there_is_nothing_to_compare(tmp_path, capsys):
    records.report("py_run", rows(1.0, 1.0), [0.2], folder=tmp_path)
    assert "no earlier record" in capsys.readouterr().out
