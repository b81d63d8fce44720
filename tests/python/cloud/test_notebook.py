"""The notebook side of skiff cloud: the script a %%skiff_job cell becomes (what it keeps of
the earlier cells), the magic's options, a real notebook executed by nbclient whose cell
runs as a job on a running service (its output in the cell's outputs), an interrupted cell
cancelling its job, and `skiff cloud notebook` starting JupyterLab."""
import json
import os
import subprocess
import sys
import time

import pytest

from skiff.cloud import cli, notebook
from skiff.cloud.notebook import cell_script, parse_options, run_cell_job

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
jupyter_client = pytest.importorskip("jupyter_client")

# The kernels find skiff where this process does (build/python).
PYTHONPATH = os.pathsep.join(p for p in sys.path if p)


def kept(script):
    """The lines taken from the earlier cells."""
    return script.split("# the cell")[0]


def test_cell_script_keeps_the_imports_and_definitions_the_cell_uses():
    history = ["import os\nimport numpy as np\nfrom math import sqrt as root\n",
               "N = 3\nLR: float = 0.1\ndata = np.zeros(N)\nprint(data)\n",
               "@staticmethod\ndef scale(x):\n    return x * N\n\nclass Model:\n"
               "    def step(self):\n        return root(scale(LR))\n",
               "def unused():\n    return os.getcwd()\n"]
    script = cell_script(history, "m = Model()\nprint(m.step())\n")
    head = kept(script)
    for line in ("from math import sqrt as root", "N = 3", "LR: float = 0.1",
                 "@staticmethod\ndef scale(x):", "class Model:"):
        assert line in head
    for dropped in ("import os", "numpy", "data =", "print(data)", "def unused"):
        assert dropped not in head
    assert script.endswith("m = Model()\nprint(m.step())\n")
    assert head.index("N = 3") < head.index("def scale") < head.index("class Model")
    compile(script, "cell.py", "exec")


def test_cell_script_skips_magics_syntax_errors_and_keeps_the_latest_definition():
    history = ["%load_ext skiff.cloud.notebook", "get_ipython().run_line_magic('time', '')",
               "%matplotlib inline\nimport json\n!ls\n", "def broken(:\n    pass\n",
               "%%bash\necho hi\n", "def f():\n    return 1\n", "def f():\n    return 2\n",
               "from __future__ import annotations\n", "from os.path import *\n",
               "get_ipython().run_cell_magic('skiff_job', '', 'f()')"]
    script = cell_script(history, "print(json.dumps(f()), join('a', 'b'))")
    head = kept(script)
    assert "import json" in head and "return 2" in head and "return 1" not in head
    assert "from os.path import *" in head
    assert script.startswith("from __future__ import annotations\n")
    for dropped in ("%", "!ls", "broken", "echo", "get_ipython"):
        assert dropped not in head
    compile(script, "cell.py", "exec")


def test_cell_script_of_a_cell_alone():
    assert cell_script([], "print(1)") == "# the cell\nprint(1)\n"


def test_the_magic_options_are_checked(tmp_path):
    (tmp_path / "train.py").write_text("print(1)\n")
    options = parse_options(f"--workers 1:2 --nproc 2 --env A=1 --env B=x=y --max-time 9 "
                            f"--dir {tmp_path} --file train.py -- --epochs 3")
    assert (options.workers, options.nproc, options.max_time) == ("1:2", 2, 9)
    assert options.env == {"A": "1", "B": "x=y"} and options.args == ["--epochs", "3"]
    for bad in ("--env A", "--nproc two", "--frobnicate", f"--dir {tmp_path} --file no.py"):
        with pytest.raises(ValueError):
            parse_options(bad)


def test_a_file_of_the_folder_runs_as_the_job(service, tmp_path):
    (tmp_path / "train.py").write_text(
        "import sys\nfrom skiff.board import LogWriter\n"
        "with LogWriter('runs') as w:\n    w.add_scalar('loss', 1.0, 0)\n"
        "print('args', sys.argv[1:])\n")
    options = parse_options(f"--dir {tmp_path} --file train.py --server {service.url} "
                            f"--token {service.token('ada')} --board-logdir runs -- --epochs 3")
    out = []
    final = run_cell_job(options, [], "ignored", out=out.append)
    assert final["state"] == "succeeded"
    assert out[0].startswith(f"skiff cloud: job {final['id']} (train.py) ")
    assert out[0].endswith(f"{service.url}/#/jobs/{final['id']}")
    assert "[rank 0] args ['--epochs', '3']" in out
    board = [line for line in out if line.startswith("skiff cloud: its board: ")]
    assert len(board) == 1 and board[0].split(": ")[-1].startswith("http://127.0.0.1:")
    assert out[-1] == f"skiff cloud: job {final['id']} succeeded (exit code 0)"


def kernel_env(service, user):
    return dict(os.environ, PYTHONPATH=PYTHONPATH, SKIFF_CLOUD_URL=service.url,
                SKIFF_CLOUD_TOKEN=service.token(user))


def test_a_notebook_cell_runs_as_a_job_and_its_output_fills_the_cell(service, tmp_path):
    cells = ["%load_ext skiff.cloud.notebook",
             "import math\nOFFSET = 10\n\ndef value(i):\n    return math.isqrt(i * i) + OFFSET\n"
             "\nstate = [0] * 1000  # the notebook's state: not sent\n",
             "%%skiff_job --workers 1\nfor i in range(3):\n"
             "    print('line', i, value(i), flush=True)\n"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    (tmp_path / "data.txt").write_text("beside the notebook\n")
    client = nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute(env=kernel_env(service, "ada"))
    outputs = nb.cells[2].outputs
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert [o.output_type for o in outputs if o.output_type == "error"] == []
    jobs = service.client("ada").jobs()
    assert len(jobs) == 1 and jobs[0]["state"] == "succeeded"
    job_id = jobs[0]["id"]
    assert f"skiff cloud: job {job_id} (cell) queued: {service.url}/#/jobs/{job_id}" in text
    assert "[rank 0] line 0 10\n[rank 0] line 1 11\n[rank 0] line 2 12\n" in text
    assert text.rstrip().endswith(f"skiff cloud: job {job_id} succeeded (exit code 0)")


def iopub_text(kc, until, timeout=60):
    """The stream text the kernel publishes, read until it contains ``until``."""
    text, deadline = "", time.monotonic() + timeout
    while until not in text:
        assert time.monotonic() < deadline, f"no {until!r} in the output: {text!r}"
        try:
            message = kc.get_iopub_msg(timeout=1)
        except Exception:  # queue.Empty: nothing yet  # noqa: BLE001
            continue
        if message["msg_type"] == "stream":
            text += message["content"]["text"]
    return text


def test_interrupting_the_cell_cancels_its_job(service, tmp_path):
    km, kc = jupyter_client.manager.start_new_kernel(
        kernel_name="python3", env=kernel_env(service, "bob"), cwd=str(tmp_path),
        startup_timeout=60)
    try:
        kc.execute_interactive("%load_ext skiff.cloud.notebook", timeout=60)
        msg_id = kc.execute("%%skiff_job\nimport time\nprint('up', flush=True)\n"
                            "time.sleep(120)\nprint('not reached')\n")
        iopub_text(kc, "] up\n")
        km.interrupt_kernel()
        reply = kc.get_shell_msg(timeout=60)
        assert reply["parent_header"]["msg_id"] == msg_id
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        job = service.client("bob").jobs()[0]
        assert "cancelled job" in iopub_text(kc, f"cancelled job {job['id']}")
        assert service.client("bob").wait(job["id"], timeout=60)["state"] == "cancelled"
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_skiff_cloud_notebook_starts_jupyterlab_with_the_extension_available():
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    done = subprocess.run([sys.executable, "-m", "skiff.cloud", "notebook", "--version"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()[0].isdigit() and "%load_ext skiff.cloud.notebook" in done.stderr


def test_the_skiff_cloud_kernel_has_the_magic_without_load_ext(monkeypatch, tmp_path):
    folder = tmp_path / "kernels" / "skiff-cloud"
    folder.mkdir(parents=True)
    (folder / "kernel.json").write_text(json.dumps(notebook.kernel_spec(PYTHONPATH)))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path))
    km, kc = jupyter_client.manager.start_new_kernel(kernel_name="skiff-cloud",
                                                     cwd=str(tmp_path), startup_timeout=60)
    try:
        kc.execute("%%skiff_job --nproc two\nprint(1)\n")
        text = iopub_text(kc, "usage:")
        assert "%%skiff_job: argument --nproc: invalid int value: 'two'" in text
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_skiff_cloud_notebook_says_when_jupyterlab_is_missing(monkeypatch, capsys):
    monkeypatch.setattr(notebook.importlib.util, "find_spec", lambda name: None)
    assert cli.main(["notebook", "--no-browser"]) == 1
    assert "JupyterLab is not installed" in capsys.readouterr().err
