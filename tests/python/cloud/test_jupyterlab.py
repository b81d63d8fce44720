"""`skiff cloud notebook` for real: JupyterLab started through `python -m skiff.cloud
notebook` against a running job service, driven in headless Chromium (Playwright, as the
service's page in test_cloud_page.py): a notebook on the kernel "Python 3 (skiff cloud)"
whose %%skiff_job cell runs as a job, its lines appearing in the cell's output while the
job still runs. Jupyter's config, data and runtime folders (and Chromium's) are temporary;
JupyterLab and every process it started are stopped at the end, all within 120 s. The
screenshots go to $SKIFF_TEST_ARTIFACTS (or pytest's tmp_path)."""
import importlib.util
import os
import pathlib
import secrets
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from skiff.cloud import Client

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright; the "
    "tests use the system's Chromium, no browser download)")
nbformat = pytest.importorskip("nbformat")
psutil = pytest.importorskip("psutil")
for _module in ("jupyterlab", "ipykernel"):
    if importlib.util.find_spec(_module) is None:
        pytest.skip(f"{_module} is not installed (requirements/notebook.txt)",
                    allow_module_level=True)
CHROMIUM = os.environ.get("SKIFF_CHROMIUM", "/usr/bin/chromium")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package 'chromium')",
                allow_module_level=True)

# JupyterLab and its kernels find skiff where this process does (build/python).
PYTHONPATH = os.pathsep.join(p for p in sys.path if p)
# The test's time, 120 s at most: JupyterLab answering, the page's work, the stop.
START_S, PAGE_S, STOP_S = 30, 60, 30
LINES, PAUSE = 15, 0.3  # the job's lines and the seconds between them

DEFINITIONS = "def numbered(i):\n    return f'line {i} of %d'\n" % LINES
JOB_CELL = ("%%skiff_job --workers 1\nimport time\n"
            f"for i in range({LINES}):\n"
            "    print(numbered(i), flush=True)\n"
            f"    time.sleep({PAUSE})\n")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class JupyterLab:
    """`python -m skiff.cloud notebook` on 127.0.0.1, everything of Jupyter's under
    ``home``; its output goes to ``home/jupyterlab.log``."""

    def __init__(self, home, server, token):
        self.home, self.port = pathlib.Path(home), free_port()
        self.token = secrets.token_hex(16)  # JupyterLab's own, for this test only
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = self.home / "jupyterlab.log"
        self.notebooks = self.home / "notebooks"
        self.notebooks.mkdir(parents=True)
        env = dict(os.environ, PYTHONPATH=PYTHONPATH, SKIFF_CLOUD_URL=server,
                   SKIFF_CLOUD_TOKEN=token)
        for name, folder in (("JUPYTER_CONFIG_DIR", "config"), ("JUPYTER_DATA_DIR", "data"),
                             ("JUPYTER_RUNTIME_DIR", "runtime"), ("IPYTHONDIR", "ipython"),
                             ("npm_config_cache", "npm")):  # jupyter-lsp asks npm
            env[name] = str(self.home / folder)
        env.pop("JUPYTER_PATH", None)
        news = self.home / "config/lab/user-settings/@jupyterlab/apputils-extension"
        news.mkdir(parents=True)  # no question about Jupyter's news over the notebook
        (news / "notification.jupyterlab-settings").write_text('{"fetchNews": "false"}')
        args = ["--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
                "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                f"--notebook-dir={self.notebooks}",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        if os.geteuid() == 0:
            args.append("--allow-root")  # JupyterLab refuses root otherwise
        with open(self.log, "w") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "skiff.cloud", "notebook", *args], env=env,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def output(self):
        return self.log.read_text(errors="replace")[-4000:]

    def wait_answering(self):
        deadline = time.monotonic() + START_S
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"JupyterLab ended:\n{self.output()}"
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}",
                                            timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.25)
        raise AssertionError(f"JupyterLab did not answer in {START_S} s:\n{self.output()}")

    def stop(self, timeout=STOP_S - 10):
        """Terminates the whole tree (skiff's wrapper, JupyterLab, its kernels, which run
        in sessions of their own), then kills what is left."""
        try:
            tree = [psutil.Process(self.process.pid)]
            tree += tree[0].children(recursive=True)
        except psutil.NoSuchProcess:
            tree = []
        if self.process.poll() is None:
            self.process.terminate()  # the wrapper passes it on; JupyterLab stops kernels
        _, alive = psutil.wait_procs(tree, timeout=timeout)
        for process in alive:
            try:
                process.terminate()
            except psutil.NoSuchProcess:
                pass
        _, alive = psutil.wait_procs(alive, timeout=5)
        for process in alive:
            try:
                process.kill()
            except psutil.NoSuchProcess:
                pass
        psutil.wait_procs(alive, timeout=5)
        self.process.wait(timeout=1)


@pytest.fixture
def ada(service):
    """The client of the user ada, whose token JupyterLab's kernels hold (a user has one
    token: a new one replaces it)."""
    return Client(service.url, service.token("ada"))


@pytest.fixture
def jupyterlab(service, ada, tmp_path):
    lab = JupyterLab(tmp_path / "jupyter", service.url, ada.token)
    try:
        lab.wait_answering()
        yield lab
    finally:
        lab.stop()


def write_notebook(path):
    """A notebook on the kernel "Python 3 (skiff cloud)": a definition, then a job cell."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(DEFINITIONS),
                                         nbformat.v4.new_code_cell(JOB_CELL)])
    nb.metadata["kernelspec"] = {"name": "skiff-cloud", "language": "python",
                                 "display_name": "Python 3 (skiff cloud)"}
    nbformat.write(nb, str(path))


class Budget:
    """The page's share of the test's time: each wait gets what is left of it."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def ms(self):
        left = self.end - time.monotonic()
        assert left > 0, "the page's work ran past its time"
        return left * 1000


def output_text(page, cell):
    return page.evaluate("""(i) => { const c = document.querySelectorAll(
        '.jp-NotebookPanel .jp-Notebook .jp-Cell')[i];
        return c ? c.querySelector('.jp-OutputArea').innerText : ''; }""", cell)


def wait_output(page, cell, text, timeout):
    """Waits (bounded) until the output area of the notebook's cell ``cell`` has ``text``."""
    try:
        page.wait_for_function("""([i, text]) => { const c = document.querySelectorAll(
            '.jp-NotebookPanel .jp-Notebook .jp-Cell')[i];
            return c && c.querySelector('.jp-OutputArea').innerText.includes(text); }""",
                               arg=[cell, text], timeout=timeout)
    except sync_api.TimeoutError:
        outputs = [output_text(page, i) for i in range(cell + 1)]
        raise AssertionError(f"no {text!r} in cell {cell}'s output; the outputs: {outputs}")


def test_a_job_cell_in_jupyterlab_shows_its_lines_live(service, ada, jupyterlab, artifacts):
    write_notebook(jupyterlab.notebooks / "jobs.ipynb")
    budget = Budget(PAGE_S)
    with sync_api.sync_playwright() as playwright:
        home = str(jupyterlab.home / "chromium")  # its profile and crash reports
        browser = playwright.chromium.launch(executable_path=CHROMIUM, env=dict(
            os.environ, HOME=home, XDG_CONFIG_HOME=home, XDG_CACHE_HOME=home))
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        try:
            page.set_default_timeout(PAGE_S * 1000)
            page.goto(f"{jupyterlab.url}/lab/tree/jobs.ipynb?token={jupyterlab.token}",
                      timeout=budget.ms())
            cells = page.locator(".jp-NotebookPanel .jp-Notebook .jp-Cell")
            cells.nth(1).wait_for(timeout=budget.ms())
            # the notebook's kernel: "Python 3 (skiff cloud)", started and idle
            page.locator(".jp-NotebookPanel .jp-Toolbar").get_by_text(
                "Python 3 (skiff cloud)").wait_for(timeout=budget.ms())
            page.locator(".jp-NotebookPanel [data-status=idle]").first.wait_for(
                timeout=budget.ms())

            cells.nth(0).locator(".jp-InputArea-editor").click(timeout=budget.ms())
            page.keyboard.press("Shift+Enter")  # the definition; moves to the job cell
            page.keyboard.press("Shift+Enter")  # the job cell

            # the first line shows while the job still runs (the last comes 4 s later)
            wait_output(page, 1, f"[rank 0] line 0 of {LINES}", budget.ms())
            jobs = ada.jobs()
            assert len(jobs) == 1 and jobs[0]["state"] == "running", jobs
            job_id = jobs[0]["id"]
            first = output_text(page, 1)
            assert f"line {LINES - 1} of {LINES}" not in first, first
            assert f"skiff cloud: job {job_id} (cell) queued: " \
                   f"{service.url}/#/jobs/{job_id}" in first
            prompt = cells.nth(1).locator(".jp-InputArea-prompt")
            sync_api.expect(prompt).to_have_text("[*]:", timeout=budget.ms())  # running
            page.screenshot(path=artifacts("live"))

            wait_output(page, 1, f"skiff cloud: job {job_id} succeeded (exit code 0)",
                        budget.ms())
            text = output_text(page, 1)
            assert "\n".join(f"[rank 0] line {i} of {LINES}" for i in range(LINES)) in text
            assert ada.job(job_id)["state"] == "succeeded"
            sync_api.expect(prompt).to_have_text("[2]:", timeout=budget.ms())
            page.screenshot(path=artifacts("done"))
        except BaseException:
            page.screenshot(path=artifacts("failed"))
            raise
        finally:
            browser.close()
