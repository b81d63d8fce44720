"""Jobs from a notebook: an IPython extension whose cell magic sends the cell to the job
service and streams the job's output into the cell's output area as it runs.

    %load_ext skiff.cloud.notebook
    import numpy as np
    def train(steps): ...
    %%skiff_job --workers 1:2
    train(100)                  # runs on the service; its lines appear here live

The cell becomes ``cell.py``, prefixed by what it uses of the earlier cells: their
top-level imports, function and class definitions and constant assignments (nothing else
of the notebook's state travels). It is sent with the files of ``--dir`` (default: the
notebook's folder, so the cell can import its modules and read its files; a ``cell.py``
there is replaced). ``--file train.py`` sends ``--dir`` and runs that file instead of the
cell. Interrupting the cell cancels the job. The server and token are --server/--token,
else SKIFF_CLOUD_URL / SKIFF_CLOUD_TOKEN, else what ``skiff cloud login`` saved.
``skiff cloud notebook`` starts JupyterLab with this extension importable."""
import argparse
import ast
import importlib.util
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

from .archive import SKIPPED_DIRS
from .client import Client, CloudError

__all__ = ["cell_script", "job_links", "load_ipython_extension", "parse_options",
           "run_cell_job", "kernel_spec", "start_jupyterlab"]

CELL_SCRIPT = "cell.py"
_DEFINITIONS = (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.AsyncFunctionDef,
                ast.ClassDef)


def _parse_cell(source):
    """The module of one earlier cell, or None (a cell magic, or code that does not parse
    even without its magic and shell lines)."""
    if source.lstrip().startswith("%%"):
        return None
    for text in (source, "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                                   for line in source.splitlines())):
        try:
            return ast.parse(text)
        except SyntaxError:
            continue
    return None


def _is_constant(node):
    """An assignment of a literal to plain names (``N = 3``, ``LR: float = 0.1``)."""
    if isinstance(node, ast.Assign):
        targets, value = node.targets, node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None and node.simple:
        targets, value = [node.target], node.value
    else:
        return False
    try:
        ast.literal_eval(value)
    except ValueError:
        return False
    return all(isinstance(t, ast.Name) for t in targets)


def _bound(node):
    """The names a kept statement binds ('*' for a star import)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for t in targets}
    return {node.name}


def _used(tree):
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def cell_script(history, cell):
    """The script a job runs for ``cell``: the statements of the earlier cells
    (``history``, oldest first) that define what the cell uses, directly or through other
    definitions, in their order, then the cell. Cells that do not parse and magics are
    skipped; ``from __future__`` imports and star imports are always kept."""
    kept = []  # (source, statement)
    for source in history:
        module = _parse_cell(source)
        lines = source.splitlines()
        for node in module.body if module else ():
            if isinstance(node, _DEFINITIONS) or _is_constant(node):
                first = min([node.lineno] + [d.lineno for d in
                                             getattr(node, "decorator_list", [])])
                kept.append(("\n".join(lines[first - 1:node.end_lineno]), node))
    try:
        needed = _used(ast.parse(cell))
    except SyntaxError:  # the job will report it; send every definition
        needed = set().union(*(_bound(n) for _, n in kept)) if kept else set()
    chosen = []
    for text, node in reversed(kept):
        bound = _bound(node)
        always = "*" in bound or (isinstance(node, ast.ImportFrom)
                                  and node.module == "__future__")
        if always or bound & needed:
            needed = (needed - bound) | (_used(node) - bound)
            chosen.append(text)
    chosen = list(dict.fromkeys(reversed(chosen)))  # in order, each text once
    future = [t for t in chosen if t.startswith("from __future__")]
    rest = [t for t in chosen if t not in future]
    parts = future + (["# from the notebook's earlier cells"] + rest + [""] if rest else [])
    return "\n".join(parts + ["# the cell", cell.rstrip("\n"), ""])


class _OptionsParser(argparse.ArgumentParser):
    def error(self, message):  # a message in the cell, never an exit of the kernel
        raise ValueError(f"{message}\n{self.format_usage()}")


def _options_parser():
    p = _OptionsParser(prog="%%skiff_job", add_help=False,
                       description="send this cell to skiff cloud as a job")
    p.add_argument("args", nargs="*", help="the program's arguments (after --)")
    p.add_argument("--workers", default="1", help="N or MIN:MAX (default 1)")
    p.add_argument("--nproc", type=int, default=1, help="processes per worker")
    p.add_argument("--cpus", type=int, default=1, help="CPUs per process")
    p.add_argument("--priority", type=int, default=0, help="higher starts first")
    p.add_argument("--max-time", type=int, help="seconds the job may run")
    p.add_argument("--env", action="append", default=[], help="NAME=VALUE (repeatable)")
    p.add_argument("--keep", action="append", default=[], help="a path to keep (repeatable)")
    p.add_argument("--board-logdir", help="the job's skiff board logdir (kept)")
    p.add_argument("--name", help="the job's name (default: cell)")
    p.add_argument("--file", help="run this .py file of --dir instead of the cell")
    p.add_argument("--dir", default=".", help="the folder to send (default: the notebook's)")
    p.add_argument("--server", help="the service's URL (default: SKIFF_CLOUD_URL, login)")
    p.add_argument("--token", help="your token (default: SKIFF_CLOUD_TOKEN, login)")
    return p


def parse_options(line):
    """The magic's options (an argparse namespace, ``env`` a dict); ValueError with the
    usage on a mistake."""
    words = shlex.split(line)
    rest = []
    if "--" in words:
        cut = words.index("--")
        words, rest = words[:cut], words[cut + 1:]
    options = _options_parser().parse_args(words)
    options.args = list(options.args) + rest
    env = {}
    for item in options.env:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"--env wants NAME=VALUE, got {item!r}")
        env[key] = value
    options.env = env
    if options.file and not os.path.isfile(os.path.join(options.dir, options.file)):
        raise ValueError(f"--file: no {options.file} in {os.path.abspath(options.dir)}")
    return options


def job_links(server, job):
    """The line that introduces a job: its id with its page."""
    return [f"skiff cloud: job {job['id']} ({job['name']}) {job['state']}: "
            f"{server}/#/jobs/{job['id']}"]


def _board_link(client, job_id):
    """The line with the job's board (skiff board, which the service starts on demand on
    the job's board_logdir), or None while the job has written no board logs."""
    try:
        return f"skiff cloud: its board: {client.board(job_id)}"
    except CloudError as e:
        return None if e.status == 409 else f"skiff cloud: no board: {e.message}"


def _work_folder(options, script_text):
    """A temporary copy of --dir with ``cell.py`` (the caller removes it)."""
    folder = tempfile.mkdtemp(prefix="skiff-cell-")
    work = os.path.join(folder, "work")
    shutil.copytree(options.dir, work, symlinks=True,
                    ignore=shutil.ignore_patterns(*SKIPPED_DIRS))
    with open(os.path.join(work, CELL_SCRIPT), "w") as f:
        f.write(script_text)
    return folder, work


def run_cell_job(options, history, cell, out=print):
    """Submits the cell (or --file) as a job, writes its output with ``out`` as it arrives,
    then its final state; returns the final job. KeyboardInterrupt (the cell interrupted)
    cancels the job, says so and is raised again."""
    client = Client(options.server, options.token)
    submit = dict(args=options.args, workers=options.workers, nproc=options.nproc,
                  cpus=options.cpus, priority=options.priority,
                  max_run_time=options.max_time, env=options.env, keep=options.keep,
                  board_logdir=options.board_logdir)
    if options.file:
        job = client.submit(script=options.file, directory=options.dir,
                            name=options.name, **submit)
    else:
        folder, work = _work_folder(options, cell_script(history, cell))
        try:
            job = client.submit(script=CELL_SCRIPT, directory=work,
                                name=options.name or "cell", **submit)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    for line in job_links(client.server, job):
        out(line)
    stream = client.follow(job["id"])
    board_shown = not options.board_logdir
    try:
        while True:
            try:
                _, line = next(stream)
            except StopIteration:
                break
            out(line)
            if not board_shown:  # once the job has written its first board logs
                link = _board_link(client, job["id"])
                if link:
                    out(link)
                    board_shown = True
    except KeyboardInterrupt:
        client.cancel(job["id"])
        out(f"skiff cloud: the cell was interrupted: cancelled job {job['id']}")
        raise
    final = client.job(job["id"])
    if not board_shown:
        out(_board_link(client, job["id"]) or "skiff cloud: the job wrote no board logs")
    code = final.get("exit_code")
    out(f"skiff cloud: job {job['id']} {final['state']}"
        + ("" if code is None else f" (exit code {code})"))
    return final


def _skiff_job(ip, line, cell):
    try:
        options = parse_options(line)
    except ValueError as e:
        print(f"%%skiff_job: {e}", file=sys.stderr)
        return
    count = ip.execution_count or 1
    history = list(ip.user_ns.get("In", [""])[1:count - 1])
    try:
        ip.user_ns["_skiff_job"] = run_cell_job(
            options, history, cell, out=lambda text: print(text, flush=True))
    except CloudError as e:
        print(f"skiff cloud: {e}", file=sys.stderr)


def load_ipython_extension(ip):
    """``%load_ext skiff.cloud.notebook``: registers the cell magic ``%%skiff_job``; the
    last job it ran is ``_skiff_job`` in the notebook."""
    ip.register_magic_function(lambda line, cell: _skiff_job(ip, line, cell),
                               magic_kind="cell", magic_name="skiff_job")


def kernel_spec(pythonpath):
    """The kernel.json of "Python 3 (skiff cloud)": this Python, ``pythonpath`` on the
    path and the extension loaded at start."""
    return {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                     "--ext=skiff.cloud.notebook"],
            "display_name": "Python 3 (skiff cloud)", "language": "python",
            "env": {"PYTHONPATH": pythonpath}, "metadata": {"debugger": True}}


def start_jupyterlab(jupyter_args, server=None, token=None):
    """Runs JupyterLab (``python -m jupyterlab JUPYTER_ARGS``) until it ends, with skiff on
    its kernels' path and the kernel "Python 3 (skiff cloud)" that loads this extension;
    ``server`` / ``token`` reach the kernels as SKIFF_CLOUD_URL / SKIFF_CLOUD_TOKEN.
    Returns its exit code (1 with a message where JupyterLab is not installed)."""
    if importlib.util.find_spec("jupyterlab") is None or importlib.util.find_spec(
            "ipykernel") is None:
        print("skiff cloud: JupyterLab is not installed; pip install jupyterlab ipykernel "
              "(scripts/setup.sh --test installs requirements/notebook.txt)", file=sys.stderr)
        return 1
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__))))
    pythonpath = os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH"))
                                 if p)
    env = dict(os.environ, PYTHONPATH=pythonpath)
    for name, value in (("SKIFF_CLOUD_URL", server), ("SKIFF_CLOUD_TOKEN", token)):
        if value:
            env[name] = value
    data = tempfile.mkdtemp(prefix="skiff-jupyter-")
    try:
        spec = os.path.join(data, "kernels", "skiff-cloud")
        os.makedirs(spec)
        with open(os.path.join(spec, "kernel.json"), "w") as f:
            json.dump(kernel_spec(pythonpath), f, indent=1)
        env["JUPYTER_PATH"] = os.pathsep.join(p for p in (data, env.get("JUPYTER_PATH")) if p)
        print("skiff cloud: in a notebook, %load_ext skiff.cloud.notebook (or the kernel "
              '"Python 3 (skiff cloud)"), then %%skiff_job --workers 1 atop a cell',
              file=sys.stderr, flush=True)
        process = subprocess.Popen([sys.executable, "-m", "jupyterlab", *jupyter_args],
                                   env=env)
        terminate = signal.signal(signal.SIGTERM, lambda *_: process.terminate())
        try:
            while True:
                try:  # Ctrl-C is JupyterLab's to handle (it asks before stopping)
                    return process.wait()
                except KeyboardInterrupt:
                    continue
        finally:
            signal.signal(signal.SIGTERM, terminate)
    finally:
        shutil.rmtree(data, ignore_errors=True)
