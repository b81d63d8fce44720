"""The job service's web page in headless Chromium (driven by Playwright) against a real
service process and real jobs: signing in and out, the tar.gz the page packs a script
into (read back by Python's tarfile and the service's unpack), submitting through the form
(and its refusals shown beside it), a job's log followed live (escaped, following the tail
unless scrolled up, searched), its timeline and artifacts, cancelling from the job's page,
and the job list's filters. The page's files are served without a token and only from its
folder. Screenshots go to $SKIFF_TEST_ARTIFACTS (or pytest's tmp_path)."""
import base64
import http.client
import io
import os
import pathlib
import re
import tarfile
import time

import pytest

from skiff.cloud.archive import unpack
from skiff.cloud.server import STATIC_DIR

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright; the "
    "tests use the system's Chromium, no browser download)")
CHROMIUM = os.environ.get("SKIFF_CHROMIUM", "/usr/bin/chromium")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package 'chromium')",
                allow_module_level=True)

WAIT_MS = 30000  # the longest any single wait in the page may take
# What a run of the page may print to the console: the browser's note on an API call the
# test expects to be refused (the page shows the refusal itself).
EXPECTED_CONSOLE = ("the server responded with a status of 400",
                    "the server responded with a status of 401")

STEPPER = """import sys, time
print("args", sys.argv[1:], flush=True)
print("<b>not markup</b>", flush=True)
for i in range(int(sys.argv[1])):
    print(f"step {i} loss {1.0 / (i + 1):.3f}", flush=True)
    time.sleep(float(sys.argv[2]))
"""
SLEEPER = "import sys, time\nprint('up', flush=True)\ntime.sleep(float(sys.argv[1]))\n"


@pytest.fixture
def service(service_factory):
    return service_factory("--slots", "4")


@pytest.fixture
def open_page(browser):
    """open_page(url): a fresh browser context on ``url`` (failing the test on any script
    error or unexpected console error)."""
    contexts, errors = [], []

    def open_(url):
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        contexts.append(context)
        tab = context.new_page()
        tab.set_default_timeout(WAIT_MS)
        tab.on("pageerror", lambda e: errors.append(f"page error: {e}"))
        tab.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error"
               and not any(s in m.text for s in EXPECTED_CONSOLE) else None)
        tab.goto(url, timeout=WAIT_MS)
        return tab

    yield open_
    for context in contexts:
        context.close()
    assert not errors, "\n".join(errors)


def sign_in(page, token):
    page.fill("#token", token)
    page.click("#login button[type=submit]")


@pytest.fixture
def ada(service, open_page):
    """A page signed in as the user ada, and her client."""
    client = service.client("ada")
    page = open_page(service.url + "/")
    sign_in(page, client.token)
    page.locator("#user").get_by_text("ada").wait_for()
    return page, client


def project(tmp_path, files):
    folder = tmp_path / f"project{len(list(tmp_path.iterdir()))}"
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text)
    return str(folder)


def wait_state(client, job_id, state, timeout=60):
    deadline = time.monotonic() + timeout
    while client.job(job_id)["state"] != state:
        assert time.monotonic() < deadline, f"job {job_id} did not become {state}"
        time.sleep(0.05)


def wait_js(page, expression, arg=None):
    """Waits (bounded) until the JS `expression` (a function of `arg`) is truthy."""
    page.wait_for_function(expression, arg=arg, timeout=WAIT_MS)


def log_lines(page, visible_only=True):
    """The texts of the log view's lines (shown ones only), without the rank prefix."""
    texts = page.evaluate("""(visible) => Array.from(document.querySelectorAll('#log .line'))
        .filter((l) => !visible || !l.hidden).map((l) => l.lastChild.textContent)""",
                          visible_only)
    return [re.sub(r"^\[rank \d+\] ", "", text) for text in texts]


def job_id_of(page):
    wait_js(page, "() => /^#\\/jobs\\/\\d+$/.test(location.hash)")
    return int(page.evaluate("location.hash").rsplit("/", 1)[1])


# ------------------------------------------------------------------------ serving the page
def get(service, path, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", service.port, timeout=30)
    try:
        connection.request("GET", path, headers=headers or {})  # sent as written
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_the_page_loads_without_a_token_and_only_from_its_folder(service):
    status, body = get(service, "/")
    assert status == 200 and b'<script type="module" src="static/app.js">' in body
    status, body = get(service, "/static/api.js")
    assert status == 200 and b"export async function jobs" in body
    assert get(service, "/api/jobs")[0] == 401
    db = os.path.join(service.root, "cloud.db")
    assert os.path.exists(db)
    relative_db = os.path.relpath(db, STATIC_DIR)
    for path in ["/static/../cloud.db", "/static/../server.py", "/static/%2e%2e/server.py",
                 "/static/..%2fserver.py", "/static/%2e%2e%2f%2e%2e%2fcloud.db",
                 "/static/../../../../../../etc/passwd", "/static/" + relative_db,
                 "/static/" + relative_db.replace("/", "%2f"), "/static/%00", "/static/",
                 "/static/nothing.js", "/cloud.db"]:
        status, body = get(service, path)
        assert status in (400, 403, 404), (path, status)
        for secret in (b"SQLite format", b"aiohttp", b"root:"):
            assert secret not in body, path


# ------------------------------------------------------------------------ the page's tar.gz
def test_the_tar_gz_the_page_packs_a_script_into_opens_in_python(service, open_page, tmp_path):
    page = open_page(service.url + "/")
    files = {"train.py": "print('hi')\n", "data/ü.txt": "x" * 512, "b.bin": "y" * 1000}
    packed = page.evaluate("""async (files) => {
        const { tarGz } = await import('./static/archive.js');
        const blob = await tarGz(Object.entries(files).map(([name, text]) =>
            ({ name, data: new TextEncoder().encode(text) })), 1700000000);
        const bytes = new Uint8Array(await blob.arrayBuffer());
        return btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
    }""", files)
    data = base64.b64decode(packed)
    assert data[:2] == b"\x1f\x8b"
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        members = tar.getmembers()
        assert [m.name for m in members] == list(files)
        for m in members:
            assert m.isfile() and m.mtime == 1700000000 and m.mode == 0o644
            assert tar.extractfile(m).read().decode() == files[m.name]
    archive = tmp_path / "page.tar.gz"
    archive.write_bytes(data)
    unpack(str(archive), str(tmp_path / "work"), max_bytes=1 << 20)
    assert (tmp_path / "work" / "data" / "ü.txt").read_text() == files["data/ü.txt"]
    refused = page.evaluate("""async () => {
        const { tar } = await import('./static/archive.js');
        const out = [];
        for (const name of ['../x', '/etc/x', 'a'.repeat(101)]) {
            try { tar([{ name, data: new Uint8Array(1) }]); out.push('packed'); }
            catch (e) { out.push(e.message); }
        }
        return out;
    }""")
    assert "packed" not in refused


# ------------------------------------------------------------------------ signing in
def test_sign_in_refuses_a_bad_token_and_sign_out_forgets_it(service, open_page, artifacts):
    token = service.token("ada")
    page = open_page(service.url + "/")
    sign_in(page, "not-a-token")
    page.locator("#login-error").get_by_text("refused").wait_for()
    page.screenshot(path=artifacts("refused"))
    sign_in(page, token)
    page.locator("#user").get_by_text("ada").wait_for()
    page.locator("#jobs").wait_for()
    assert page.evaluate("localStorage.getItem('skiff.cloud.token')") == token
    page.reload()
    page.locator("#user").get_by_text("ada").wait_for()  # the token outlives the page
    page.click("#sign-out")
    page.locator("#login").wait_for()
    assert page.evaluate("localStorage.getItem('skiff.cloud.token')") is None
    assert page.locator("#view").inner_text() == ""


# ------------------------------------------------------------------------ submit and follow
def test_submit_a_script_and_follow_its_log_live(ada, tmp_path, artifacts):
    page, client = ada
    script = tmp_path / "stepper.py"
    script.write_text(STEPPER)
    page.click("a[data-route=submit]")
    page.set_input_files("#submit-file", str(script))
    assert page.input_value("#submit-script") == "stepper.py"
    page.fill("#submit-args", "80\n0.1\na b; echo no shell")
    page.fill("#submit-workers", "0")
    page.click("#submit-form button[type=submit]")
    page.locator("#submit-error").get_by_text("workers: MIN must be at least 1").wait_for()
    page.screenshot(path=artifacts("refused"))
    assert client.jobs() == []
    page.fill("#submit-workers", "1")
    page.fill("#submit-env", "GREETING=a=b")
    page.fill("#submit-name", "stepper-run")
    page.click("#submit-form button[type=submit]")
    job_id = job_id_of(page)

    # lines arrive while the job runs, and the view follows the tail
    wait_js(page, "() => document.querySelectorAll('#log .line').length >= 40")
    assert client.job(job_id)["state"] == "running"
    assert page.get_attribute(".log-section", "data-ended") is None
    lines = log_lines(page)
    assert lines[0] == "args ['80', '0.1', 'a b; echo no shell']"
    assert lines[1] == "<b>not markup</b>" and page.locator("#log b").count() == 0
    assert lines[2:5] == ["step 0 loss 1.000", "step 1 loss 0.500", "step 2 loss 0.333"]
    at_bottom = "() => { const b = document.getElementById('log'); " \
                "return b.scrollHeight - b.scrollTop - b.clientHeight <= 8; }"
    assert page.evaluate(at_bottom)
    page.locator(".job-header .state-running").wait_for()
    page.screenshot(path=artifacts("live"))

    # scrolled up, the view stays put while lines come; "follow the tail" goes back
    page.evaluate("document.getElementById('log').scrollTop = 0")
    page.locator("#log-follow").wait_for()
    seen = len(log_lines(page))
    wait_js(page, "(n) => document.querySelectorAll('#log .line').length > n + 3", seen)
    assert page.evaluate("document.getElementById('log').scrollTop") == 0
    page.click("#log-follow")
    wait_js(page, at_bottom)

    # the search keeps the lines holding its text, marked
    page.fill("#log-search", "STEP 1")
    shown = log_lines(page)
    assert shown and all("step 1" in line for line in shown)
    assert "step 1 loss 0.500" in shown and "step 2 loss 0.333" not in shown
    assert set(page.locator("#log mark").all_inner_texts()) == {"step 1"}
    page.screenshot(path=artifacts("search"))

    # the end: final state on the page, lines complete, timeline of the states
    page.locator('.log-section[data-ended="succeeded"]').wait_for()
    page.locator(".job-header .state-succeeded").wait_for()
    page.fill("#log-search", "")
    lines = log_lines(page)
    assert len(lines) == 82 and lines[-1] == f"step 79 loss {1 / 80:.3f}"
    assert page.locator("#log-count").inner_text() == "82 lines"
    states = page.locator("#timeline .state").all_inner_texts()
    assert states == ["queued", "starting", "running", "succeeded"]
    assert page.locator('[data-fact="exit code"]').inner_text() == "0"
    assert page.locator('[data-fact="env"]').inner_text() == "GREETING=a=b"
    assert client.job(job_id)["spec"]["env"] == {"GREETING": "a=b"}
    page.screenshot(path=artifacts("done"), full_page=True)


def test_a_failed_job_shows_its_exit_code_reason_and_tail(ada, tmp_path):
    page, client = ada
    folder = project(tmp_path, {"fail.py": "import time\nprint('about to fail')\n"
                                           "time.sleep(1.5)\nraise SystemExit(3)\n"})
    job = client.submit("fail.py", directory=folder)
    page.evaluate(f"location.hash = '#/jobs/{job['id']}'")
    page.locator(".job-header .state-failed").wait_for()
    assert page.locator('[data-fact="exit code"]').inner_text() == "3"
    assert "about to fail" in page.locator("#log-tail").inner_text()
    resources = page.locator('[data-fact="resources"]').inner_text()  # the runner's sample
    assert re.match(r"\d+\.\d s of CPU, peak [\d.]+ MB$", resources), resources  # totals


def test_artifacts_download_with_the_token(ada, tmp_path):
    page, client = ada
    folder = project(tmp_path, {"save.py": "import os\nos.makedirs('out', exist_ok=True)\n"
                                           "open('out/result.txt', 'w').write('forty-two')\n"})
    job = client.wait(client.submit("save.py", directory=folder, keep=["out"])["id"], timeout=60)
    page.evaluate(f"location.hash = '#/jobs/{job['id']}'")
    link = page.locator('#artifacts a[data-path="out/result.txt"]')
    with page.expect_download(timeout=WAIT_MS) as download:
        link.click()
    assert download.value.suggested_filename == "result.txt"
    assert pathlib.Path(download.value.path()).read_text() == "forty-two"


def test_the_board_button_opens_the_jobs_board(ada, tmp_path):
    page, client = ada
    folder = project(tmp_path, {"log.py": "from skiff.board import LogWriter\n"
                                          "with LogWriter('runs') as w:\n"
                                          "    w.add_scalar('loss', 0.5, 0)\n"})
    job = client.wait(client.submit("log.py", directory=folder, board_logdir="runs")["id"],
                      timeout=60)
    assert job["state"] == "succeeded", job["log_tail"]
    page.evaluate(f"location.hash = '#/jobs/{job['id']}'")
    with page.context.expect_page(timeout=WAIT_MS) as opened:
        page.locator("#board").click()
    board = opened.value
    board.wait_for_url(re.compile(r"http://127\.0\.0\.1:\d+/"), timeout=WAIT_MS)
    # the one board the service started (its page may have added its tab's #fragment)
    assert board.url.split("#")[0] == client.board(job["id"])
    board.close()


# ------------------------------------------------------------------------ cancel, the list
def test_cancel_a_long_job_from_its_page(ada, tmp_path, artifacts):
    page, client = ada
    folder = project(tmp_path, {"sleep.py": SLEEPER})
    job = client.submit("sleep.py", args=["300"], directory=folder)
    wait_state(client, job["id"], "running")
    page.evaluate(f"location.hash = '#/jobs/{job['id']}'")
    page.locator(".job-header .state-running").wait_for()
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#cancel")
    page.locator(".job-header .state-cancelled").wait_for()
    page.locator('.log-section[data-ended="cancelled"]').wait_for()
    assert page.locator("#cancel").count() == 0
    assert "cancel asked by ada" in page.locator("#timeline").inner_text()
    assert client.job(job["id"])["state"] == "cancelled"
    page.screenshot(path=artifacts("cancelled"), full_page=True)


def test_the_job_list_filters_by_state_and_an_admin_by_user(service, ada, open_page, tmp_path,
                                                            artifacts):
    page, client = ada
    folder = project(tmp_path, {"sleep.py": SLEEPER})
    done = client.wait(client.submit("sleep.py", args=["0"], directory=folder)["id"], 60)
    running = client.submit("sleep.py", args=["300"], directory=folder)
    cancelled = client.submit("sleep.py", args=["300"], directory=folder)
    wait_state(client, cancelled["id"], "running")
    client.cancel(cancelled["id"])
    wait_state(client, cancelled["id"], "cancelled")
    bob = service.client("bob")
    bobs = bob.submit("sleep.py", args=["300"], directory=folder)
    page.click("a[data-route=jobs]")

    def rows(expected):
        """Waits until the list shows the jobs `expected` (id: state), newest first."""
        want = sorted(expected, reverse=True)
        wait_js(page, """(want) => JSON.stringify(Array.from(
            document.querySelectorAll('#jobs .job-row'), (r) => Number(r.dataset.job)))
            === JSON.stringify(want)""", want)
        for job_id, state in expected.items():
            page.locator(f'.job-row[data-job="{job_id}"] .state-{state}').wait_for()

    everything = {done["id"]: "succeeded", running["id"]: "running",
                  cancelled["id"]: "cancelled"}
    rows(everything)  # bob's job is not ada's to see; the list refreshes by itself
    assert page.locator("#filter-user").count() == 0
    colors = {s: page.locator(f"#jobs .state-{s}").evaluate(
        "(e) => getComputedStyle(e).backgroundColor") for s in everything.values()}
    assert len(set(colors.values())) == 3
    page.screenshot(path=artifacts("all"))
    page.select_option("#filter-state", "running")
    rows({running["id"]: "running"})
    page.select_option("#filter-state", "cancelled")
    rows({cancelled["id"]: "cancelled"})
    page.select_option("#filter-state", "queued,starting,running")
    rows({running["id"]: "running"})
    page.select_option("#filter-state", "")
    rows(everything)
    page.click(f'.job-row[data-job="{done["id"]}"] td:nth-child(2)')
    page.locator(".job-header .state-succeeded").wait_for()

    admin = open_page(service.url + "/")
    sign_in(admin, service.token("root", admin=True))
    rows_admin = {**everything, bobs["id"]: "running"}
    page = admin
    rows(rows_admin)
    page.fill("#filter-user", "bob")
    rows({bobs["id"]: "running"})
    page.select_option("#filter-state", "succeeded")
    rows({})
    page.screenshot(path=artifacts("admin"))
