"""The board's web page in headless Chromium (driven by Playwright) against a real board
server on 127.0.0.1: a logdir made by short skiff training runs (LogWriter: scalars,
histograms, images, text, audio, PR curves, hparams, embeddings) and a static program
whose while loop holds an if/else. Checks what the page draws against what was logged:
plotted values, smoothing (TensorBoard's debiased moving average computed here), axes,
tag filter and run selection, incremental and live loading, every other tab, and the
program view's nested, collapsible blocks and edges against the program itself.
Screenshots go to $SKIFF_TEST_ARTIFACTS (or pytest's tmp_path)."""
import os

import numpy as np
import pytest

sync_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install playwright; the "
    "tests use the system's Chromium, no browser download)")
CHROMIUM = os.environ.get("SKIFF_CHROMIUM", "/usr/bin/chromium")
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (Debian package 'chromium')",
                allow_module_level=True)

import skiff  # noqa: E402
from skiff.board import LogWriter  # noqa: E402
from skiff.board import server as board_server  # noqa: E402

WAIT_MS = 20000          # the longest any single wait in the page may take
STEPS = 30               # training steps per run
RUNS = {"mlp/lr0.05": 0.05, "mlp/lr0.01": 0.01}
WIDE_TAGS = 60           # scalar tags of the run that checks incremental loading
T0 = 1_700_000_000.0     # wall time of the first loss (seconds); one step every 2 s


# ---------------------------------------------------------------------------- the logdir
def _train(folder, lr, seed):
    """A tiny MLP fitting a linear map with Adam, logged through LogWriter; returns what
    was logged, for the checks."""
    skiff.seed(seed)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    model = skiff.nn.Sequential(skiff.nn.Linear(4, 16), skiff.nn.ReLU(), skiff.nn.Linear(16, 1))
    opt = skiff.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    xt, yt = skiff.to_tensor(x), skiff.to_tensor(y)
    logged = {"loss": [], "histogram_steps": [], "image_steps": [], "image_shape": None}
    with LogWriter(str(folder)) as writer:
        for step in range(STEPS):
            out = model(xt)
            loss = skiff.nn.functional.mse_loss(out, yt)
            loss.backward()
            opt.step()
            opt.clear_grad()
            logged["loss"].append(float(loss))
            writer.add_scalar("train/loss", float(loss), step, walltime=T0 + 2.0 * step)
            if step % 3 == 0:
                writer.add_histogram("weights/linear_0", model[0].weight.numpy(), step, buckets=20)
                logged["histogram_steps"].append(step)
            if step % 10 == 0:
                w = model[0].weight.numpy()
                img = ((w - w.min()) / (np.ptp(w) + 1e-12) * 255).astype(np.uint8)
                img = np.kron(img, np.ones((8, 8), np.uint8))[:, :, None]  # 32 x 128, one channel
                writer.add_image("weights/image", img, step)
                logged["image_steps"].append(step)
                logged["image_shape"] = img.shape
        scores = 1.0 / (1.0 + np.exp(-out.numpy().reshape(-1)))
        writer.add_pr_curve("train/pr", (y.reshape(-1) > 0).astype(np.float64), scores, STEPS - 1)
        writer.add_text("notes", f"Adam, learning rate {lr}", 0)
        writer.add_audio("tone", np.sin(np.arange(4000) * 2 * np.pi * 440 / 8000) * 0.5, 0)
        writer.add_hparams({"lr": lr, "optimizer": "adam", "hidden": 16}, ["train/loss"])
        hidden = model[1](model[0](xt)).numpy()
        writer.add_embeddings("hidden", hidden, ["pos" if v > 0 else "neg" for v in y[:, 0]])
    return logged


def _while_with_cond_program(path_prefix):
    """Saves (skiff.static.save) a trained program: Linear, then a while loop whose body
    holds an if/else, a loss and Adam; returns [(block idx, [op types], [(inputs,
    outputs)], {sub-block: op index running it})] of the program for the checks."""
    import skiff.static as st
    main, startup = st.Program(), st.Program()
    skiff.enable_static()
    try:
        with st.program_guard(main, startup), st.scope_guard(st.Scope()):
            x = st.data("x", [-1, 4], "float32")
            h = skiff.nn.Linear(4, 4)(x)
            i = skiff.zeros([1], "int64")
            n = skiff.full([1], 3, "int64")

            def body(i, h):
                h = st.nn.cond(h.sum() > 0, lambda: h * 0.5, lambda: h + 1.0)
                return [i + 1, h]

            _, out = st.nn.while_loop(lambda i, h: i < n, body, [i, h])
            loss = out.mean()
            skiff.optimizer.Adam(0.1).minimize(loss)
            exe = st.Executor()
            exe.run(startup)
            exe.run(feed={"x": np.ones((2, 4), np.float32)}, fetch_list=[loss])
            st.save(main, str(path_prefix))
            return [(b.idx, [op.type for op in b.ops],
                     [(op.input_arg_names, op.output_arg_names) for op in b.ops],
                     {int(s): i for i, op in enumerate(b.ops) for s in op.desc.sub_blocks})
                    for b in main.blocks]
    finally:
        skiff.disable_static()


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    """The logdir, what was logged in it, and an open writer on the run 'live'."""
    root = tmp_path_factory.mktemp("board_logdir")
    logged = {name: _train(root / name, lr, seed) for seed, (name, lr) in enumerate(RUNS.items())}
    with LogWriter(str(root / "wide")) as writer:
        for k in range(WIDE_TAGS):
            for step in range(3):
                writer.add_scalar(f"probe/p{k:02d}", k + step * 0.5, step)
    program = _while_with_cond_program(root / "programs" / "loop_cond")
    live = LogWriter(str(root / "live"))
    for step in range(5):
        live.add_scalar("live/value", step * 1.5, step)
    live.flush()
    yield {"root": root, "runs": logged, "program": program, "live": live}
    live.close()


# --------------------------------------------------------------------- server and browser
@pytest.fixture(scope="module")
def board(logs):
    """The base URL of a board server serving the logdir (stopped afterwards)."""
    url, stop = board_server.start_in_thread(str(logs["root"]), host="127.0.0.1", port=0,
                                             timeout=WAIT_MS / 1000)
    try:
        yield url.rstrip("/")
    finally:
        stop()


@pytest.fixture
def page(browser, board):
    """A fresh page on the board (live polling every second), failing the test on any
    script error or console error."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(WAIT_MS)
    errors = []
    tab.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    tab.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    tab.goto(f"{board}/?poll=1000", timeout=WAIT_MS)
    yield tab
    context.close()
    assert not errors, "\n".join(errors)


def ready(page, selector):
    """Scrolls the first `selector` into view (cards load as they come into view), waits
    (bounded) for it to have data-state=ready and returns its locator."""
    page.locator(selector).first.scroll_into_view_if_needed(timeout=WAIT_MS)
    loc = page.locator(f"{selector}[data-state=ready]").first
    loc.wait_for(timeout=WAIT_MS)
    return loc


def plot_data(page, selector, each):
    """Each plotly trace of the chart in `selector` mapped by the JS function `each`. The
    chart is found and read in one step, waiting (bounded) while live polling redraws it
    (a card replaced between a wait and the read would otherwise read as null)."""
    return page.wait_for_function(
        f"(s) => {{ const el = document.querySelector(s); "
        f"return el && el.data ? Array.from(el.data, {each}) : null; }}",
        arg=f"{selector} .js-plotly-plot, {selector}.js-plotly-plot",
        timeout=WAIT_MS).json_value()


def traces(page, tag):
    """The traces of the scalar chart of `tag`: [{run, role, x, y}] (dates as ms)."""
    return plot_data(page, f'.scalar-card[data-tag="{tag}"]', """t => ({run: t.meta.run,
        role: t.meta.role, x: Array.from(t.x, Number), y: Array.from(t.y)})""")


def debiased_ema(values, weight):
    """TensorBoard's smoothing, written here as the reference."""
    out, average = [], 0.0
    for n, v in enumerate(values, 1):
        average = average * weight + (1 - weight) * v
        out.append(average / (1 - weight ** n))
    return out


def set_slider(page, selector, value):
    page.locator(selector).fill(str(value))


def open_tab(page, tab):
    page.locator(f'.tab[data-tab="{tab}"]').click()
    page.locator(f"#pane-{tab}").wait_for(state="visible", timeout=WAIT_MS)


def wait_js(page, expression, arg=None):
    """Waits (bounded) until the JS `expression` (a function of `arg`) is truthy."""
    page.wait_for_function(expression, arg=arg, timeout=WAIT_MS)


def wait_count(page, selector, n):
    """Waits (bounded) until exactly `n` elements match `selector`."""
    wait_js(page, "([s, n]) => document.querySelectorAll(s).length === n", [selector, n])


def wait_attr(page, selector, attr, value):
    """Waits (bounded) until the first `selector` has data-`attr` equal to `value`."""
    page.wait_for_function(
        "([s, a, v]) => { const e = document.querySelector(s); return e && e.dataset[a] === v; }",
        arg=[selector, attr, str(value)], timeout=WAIT_MS)


LOSS = '.scalar-card[data-tag="train/loss"]'


# ---------------------------------------------------------------------------- scalars
def test_scalar_charts_plot_the_logged_values(page, logs, artifacts):
    card = ready(page, LOSS)
    assert card.locator(".card-title").inner_text() == "train/loss"
    assert card.locator("svg.main-svg").count() >= 1
    set_slider(page, "#smoothing", 0)
    wait_attr(page, LOSS, "smoothing", "0")
    raw = {t["run"]: t for t in traces(page, "train/loss")}
    assert set(raw) == set(RUNS)
    for run in RUNS:
        logged = np.float32(logs["runs"][run]["loss"]).astype(np.float64)
        assert raw[run]["role"] == "raw" and raw[run]["x"] == list(range(STEPS))
        np.testing.assert_allclose(raw[run]["y"], logged, rtol=1e-6)
    assert card.locator(".scatterlayer path.js-line").count() == len(RUNS)  # a line per run
    assert set(card.locator(".legendtext").all_text_contents()) == set(RUNS)
    assert int(card.get_attribute("data-points")) == STEPS * len(RUNS)
    hrefs = card.locator("a.download").evaluate_all("links => links.map(a => a.href)")
    assert len(hrefs) == 2 * len(RUNS)
    link = card.locator('a.download[data-run="mlp/lr0.05"][data-format="csv"]')
    csv = page.request.get(link.evaluate("a => a.href"), timeout=WAIT_MS).text().split()
    assert csv[0] == "wall_time,step,value" and len(csv) == STEPS + 1
    assert [float(v) for v in csv[-1].split(",")] == pytest.approx(
        [T0 + 2.0 * (STEPS - 1), STEPS - 1, logs["runs"]["mlp/lr0.05"]["loss"][-1]], rel=1e-6)
    page.screenshot(path=artifacts("scalars"))


def test_smoothing_plots_the_debiased_moving_average(page, logs, artifacts):
    ready(page, LOSS)
    set_slider(page, "#smoothing", 0)
    wait_attr(page, LOSS, "smoothing", "0")
    before = traces(page, "train/loss")
    assert [t["role"] for t in before] == ["raw"] * len(RUNS)
    set_slider(page, "#smoothing", 0.9)
    wait_attr(page, LOSS, "smoothing", "0.9")
    assert page.locator("#smoothing-value").inner_text() == "0.90"
    after = traces(page, "train/loss")
    for run in RUNS:
        logged = np.float32(logs["runs"][run]["loss"]).astype(np.float64)
        smoothed = [t for t in after if t["run"] == run and t["role"] == "smoothed"]
        assert len(smoothed) == 1
        np.testing.assert_allclose(smoothed[0]["y"], debiased_ema(logged, 0.9), rtol=1e-6)
        assert np.max(np.abs(np.array(smoothed[0]["y"]) - logged)) > 1e-3  # the plot changed
    page.screenshot(path=artifacts("smoothed"))


def test_log_scale_and_time_axes(page):
    ready(page, LOSS)
    page.locator("#log-y").check()
    wait_js(page, "(s) => document.querySelector(s).layout.yaxis.type === 'log'",
            f"{LOSS} .js-plotly-plot")
    page.locator('input[name="x-axis"][value="relative"]').check()
    wait_js(page, "(s) => document.querySelector(s).layout.xaxis.title.text.startsWith('relative')",
            f"{LOSS} .js-plotly-plot")
    for t in traces(page, "train/loss"):
        np.testing.assert_allclose(t["x"], [2.0 * s for s in range(STEPS)])
    page.locator('input[name="x-axis"][value="wall"]').check()
    wait_js(page, "(s) => document.querySelector(s).layout.xaxis.type === 'date'",
            f"{LOSS} .js-plotly-plot")
    for t in traces(page, "train/loss"):  # Dates, as milliseconds since the epoch
        np.testing.assert_allclose(t["x"], [(T0 + 2.0 * s) * 1000 for s in range(STEPS)])


def test_tag_filter_and_run_selection(page, logs):
    ready(page, LOSS)
    all_tags = 2 + WIDE_TAGS  # train/loss, live/value and the probes
    page.locator("#tag-filter").fill("^probe/p0[0-4]$")
    wait_count(page, ".scalar-card", 5)
    tags = page.locator(".scalar-card").evaluate_all("cs => cs.map(c => c.dataset.tag)")
    assert tags == [f"probe/p{k:02d}" for k in range(5)]
    page.locator("#tag-filter").fill("(")
    page.locator("#tag-filter.invalid").wait_for(timeout=WAIT_MS)
    wait_count(page, ".scalar-card", all_tags)
    page.locator("#tag-filter").fill("LOSS")  # case-insensitive
    wait_count(page, ".scalar-card", 1)
    page.locator('#runs input[data-run="mlp/lr0.01"]').uncheck()
    wait_attr(page, LOSS, "runs", "mlp/lr0.05")
    ready(page, LOSS)
    assert {t["run"] for t in traces(page, "train/loss")} == {"mlp/lr0.05"}


def test_charts_load_as_they_come_into_view(browser, board):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    page = context.new_page()
    fetched = []
    page.on("request", lambda r: fetched.append(r.url) if "max_points=1000" in r.url else None)
    try:
        page.goto(f"{board}/?poll=60000", timeout=WAIT_MS)
        page.locator("#tag-filter").fill("^probe/")
        wait_count(page, ".scalar-card", WIDE_TAGS)
        ready(page, '.scalar-card[data-tag="probe/p00"]')
        wait_js(page, "() => !document.querySelector('.scalar-card[data-state=loading]')")
        drawn = page.locator(".scalar-card[data-state=ready]").count()
        assert 0 < drawn < WIDE_TAGS // 2, f"{drawn} of {WIDE_TAGS} charts drawn before scrolling"
        probes = [u for u in fetched if "probe" in u]
        assert len(probes) < WIDE_TAGS // 2, f"{len(probes)} series fetched before scrolling"
        assert not [u for u in probes if f"p{WIDE_TAGS - 1:02d}" in u]
        last = page.locator(f'.scalar-card[data-tag="probe/p{WIDE_TAGS - 1:02d}"]')
        assert last.get_attribute("data-state") == "waiting"
        last.scroll_into_view_if_needed()
        ready(page, f'.scalar-card[data-tag="probe/p{WIDE_TAGS - 1:02d}"]')
        ys = traces(page, f"probe/p{WIDE_TAGS - 1:02d}")[0]["y"]
        np.testing.assert_allclose(ys, [WIDE_TAGS - 1 + s * 0.5 for s in range(3)])
    finally:
        context.close()


def test_live_polling_fetches_a_series_again_only_when_it_grew(page, logs):
    seen = []
    page.on("request", lambda r: seen.append(r.url) if "max_points=1000" in r.url else None)
    page.locator("#tag-filter").fill("^(live/value|train/loss)$")
    wait_count(page, ".scalar-card", 2)
    live = ready(page, '.scalar-card[data-tag="live/value"]')
    ready(page, LOSS)
    assert live.get_attribute("data-points") == "5"
    full_loss_fetches = len([u for u in seen if "train%2Floss" in u])
    for step in range(5, 12):
        logs["live"].add_scalar("live/value", step * 1.5, step)
    logs["live"].flush()
    wait_attr(page, '.scalar-card[data-tag="live/value"]', "points", "12")
    y = traces(page, "live/value")[0]["y"]
    np.testing.assert_allclose(y[-1], 11 * 1.5)
    polls = int(page.evaluate("document.body.dataset.polls"))
    wait_js(page, "(n) => Number(document.body.dataset.polls) >= n", polls + 2)
    assert len([u for u in seen if "train%2Floss" in u]) == full_loss_fetches


# ------------------------------------------------------------------------- other tabs
RUN = "mlp/lr0.05"


def test_histograms_as_offset_ridges_and_heatmap(page, logs, artifacts):
    logged = logs["runs"][RUN]
    open_tab(page, "histograms")
    hist = f'.histogram-card[data-tag="weights/linear_0"][data-run="{RUN}"]'
    ready(page, hist)
    steps = plot_data(page, hist, "t => t.meta.step")
    assert sorted(steps) == logged["histogram_steps"]  # one ridge per logged step
    page.screenshot(path=artifacts("offset"))
    page.locator('input[name="histogram-mode"][value="heatmap"]').check()
    wait_attr(page, hist, "mode", "heatmap")
    heat = plot_data(page, hist, """t => ({type: t.type, y: Array.from(t.y),
        total: t.z.map(row => row.reduce((a, b) => a + b, 0))})""")
    assert heat[0]["type"] == "heatmap" and heat[0]["y"] == logged["histogram_steps"]
    assert heat[0]["total"] == [4 * 16] * len(logged["histogram_steps"])  # every weight counted
    page.screenshot(path=artifacts("heatmap"))


def test_images_with_a_step_slider(page, logs, artifacts):
    logged = logs["runs"][RUN]
    open_tab(page, "images")
    card = f'.images-card[data-tag="weights/image"][data-run="{RUN}"]'
    ready(page, card)
    wait_attr(page, card, "step", logged["image_steps"][-1])  # the latest first
    image = page.locator(f"{card} img.logged-image")
    wait_js(page, "(s) => document.querySelector(s).naturalWidth > 0", f"{card} img")
    height, width, _ = logged["image_shape"]
    assert image.evaluate("i => [i.naturalWidth, i.naturalHeight]") == [width, height]
    set_slider(page, f"{card} input.step-input", 0)
    wait_attr(page, card, "step", logged["image_steps"][0])
    assert "index=" in image.get_attribute("src")
    page.screenshot(path=artifacts("images"))


def test_audio_text_and_pr_curves(page, artifacts):
    open_tab(page, "audio")
    clip = f'.audio-card[data-tag="tone"][data-run="{RUN}"] audio'
    ready(page, f'.audio-card[data-tag="tone"][data-run="{RUN}"]')
    page.locator(clip).evaluate("a => a.load()")
    wait_js(page, "(s) => document.querySelector(s).readyState >= 1", clip)
    assert page.locator(clip).evaluate("a => a.duration") == pytest.approx(0.5, abs=0.01)

    open_tab(page, "text")
    notes = f'.text-card[data-tag="notes"][data-run="{RUN}"]'
    ready(page, notes)
    assert page.locator(f"{notes} .text-value").all_inner_texts() == ["Adam, learning rate 0.05"]

    open_tab(page, "pr_curves")
    pr = f'.pr-card[data-tag="train/pr"][data-run="{RUN}"]'
    ready(page, pr)
    wait_attr(page, pr, "step", STEPS - 1)
    curve = plot_data(page, pr, "t => ({x: Array.from(t.x), y: Array.from(t.y)})")[0]
    assert len(curve["x"]) == len(curve["y"]) == 10  # the default number of thresholds
    assert all(0 <= v <= 1 for v in curve["x"] + curve["y"])
    assert curve["x"][0] == pytest.approx(1.0)  # the lowest threshold finds every positive
    page.screenshot(path=artifacts("pr_curves"))


def test_hparams_table_and_parallel_coordinates(page, logs, artifacts):
    open_tab(page, "hparams")
    page.locator("#hparams-table").wait_for(timeout=WAIT_MS)
    rows = page.locator("#hparams-table tbody tr").evaluate_all("rs => rs.map(r => r.dataset.run)")
    assert sorted(rows) == sorted(RUNS)
    heads = page.locator("#hparams-table th").all_inner_texts()
    assert [h.rstrip(" ▲▼") for h in heads] == ["run", "hidden", "lr", "optimizer", "train/loss"]
    for run, lr in RUNS.items():
        cells = page.locator(f'#hparams-table tr[data-run="{run}"] td').all_inner_texts()
        last_loss = float(np.float32(logs["runs"][run]["loss"][-1]))
        assert cells[:4] == [run, "16", str(lr), "adam"]
        assert float(cells[4]) == pytest.approx(last_loss, rel=1e-4)
    wait_attr(page, "#hparams-parcoords", "lines", "2")
    labels = plot_data(page, "#hparams-parcoords", "t => t.dimensions.map(d => d.label)")[0]
    assert labels == ["hidden", "lr", "optimizer", "train/loss"]
    page.screenshot(path=artifacts("hparams"))


def test_embeddings_in_2d_and_3d(page, artifacts):
    open_tab(page, "embeddings")
    chooser = page.locator('select[data-role="embedding"]')
    chooser.wait_for(timeout=WAIT_MS)
    options = chooser.locator("option").evaluate_all("os => os.map(o => [o.value, o.textContent])")
    chooser.select_option(next(v for v, text in options if "hidden" in text and RUN in text))
    ready(page, f'#embedding-chart[data-run="{RUN}"][data-method="pca"][data-dims="2"]')
    groups = plot_data(page, "#embedding-chart", "t => [t.type, t.name, t.x.length]")
    assert sorted(name for _, name, _ in groups) == ["neg", "pos"]  # a trace per label
    assert sum(n for *_, n in groups) == 64 and {t for t, *_ in groups} == {"scatter"}
    page.screenshot(path=artifacts("pca"))
    page.locator('select[data-role="method"]').select_option("tsne")
    page.locator('select[data-role="dims"]').select_option("3")
    ready(page, '#embedding-chart[data-method="tsne"][data-dims="3"]')
    groups = plot_data(page, "#embedding-chart", "t => [t.type, t.name, t.z.length]")
    assert {t for t, *_ in groups} == {"scatter3d"} and sum(n for *_, n in groups) == 64
    page.screenshot(path=artifacts("tsne_3d"))


# ----------------------------------------------------------------------- program view
def expected_edges(io):
    """The edges the program view must draw for one block: from the op that last wrote a
    variable (earlier in the block) to each op reading it."""
    writer, edges = {}, {}
    for i, (inputs, outputs) in enumerate(io):
        for name in dict.fromkeys(n for n in inputs if n):  # an empty name is no variable
            if name in writer:
                edges.setdefault((writer[name], i), []).append(name)
        for name in filter(None, outputs):
            writer[name] = i
    return {(a, b, " ".join(names)) for (a, b), names in edges.items()}


DRAWN_BLOCKS = """() => Array.from(document.querySelectorAll('#program-graph .block-graph'), g => {
    const owner = g.parentElement.closest('.op-node');
    const nodes = Array.from(g.querySelectorAll(':scope > .layer > .op-node'))
      .sort((a, b) => a.dataset.opIndex - b.dataset.opIndex);
    return {
      block: Number(g.dataset.block),
      types: nodes.map(n => n.dataset.opType),
      owner: owner ? [Number(owner.dataset.block), Number(owner.dataset.opIndex)] : null,
      edges: Array.from(g.querySelectorAll(':scope > svg.edges > path.edge'),
        p => [Number(p.dataset.from), Number(p.dataset.to), p.dataset.vars, p.getAttribute('d')]),
    };
  })"""


def test_program_view_draws_nested_collapsible_blocks(page, logs, artifacts):
    open_tab(page, "program")
    picker = page.locator("#program-select")
    picker.wait_for(timeout=WAIT_MS)
    options = picker.locator("option").evaluate_all("os => os.map(o => [o.value, o.textContent])")
    picker.select_option(next(v for v, text in options if "loop_cond" in text))
    ready(page, "#program-holder")
    wait_js(page, "() => document.querySelector('#program-graph').dataset.name.includes('loop')")
    by_block = {g["block"]: g for g in page.evaluate(DRAWN_BLOCKS)}
    program = logs["program"]
    assert sorted(by_block) == [b for b, *_ in program]
    runner = {sub: [b, i] for b, _, _, subs in program for sub, i in subs.items()}
    types = {b: t for b, t, _, _ in program}
    for idx, op_types, io, _ in program:
        g = by_block[idx]
        assert g["types"] == op_types, f"block {idx}"
        assert {(a, b, v) for a, b, v, _ in g["edges"]} == expected_edges(io), f"block {idx}"
        assert all(d.startswith("M") for *_, d in g["edges"])
        assert g["owner"] == runner.get(idx), f"block {idx} drawn inside the op running it"
    # the while body holds the if/else: conditional_block nodes with nested graphs inside it
    body = next(sub for sub, (b, i) in runner.items() if b == 0 and types[0][i] == "while")
    branches = [sub for sub, (b, i) in runner.items()
                if b == body and types[b][i] == "conditional_block"]
    assert len(branches) == 2

    kinds = page.locator("#program-graph .op-node").evaluate_all(
        "ns => ns.map(n => [n.dataset.opType, n.dataset.kind])")
    assert all(kind in ("grad", "control-grad") for t, kind in kinds if t.endswith("_grad"))
    assert {k for t, k in kinds if t in ("matmul", "while", "less_than")} == {"forward", "control"}
    assert {k for t, k in kinds if t == "adam"} == {"optimizer"}
    assert page.locator('#program-legend [data-kind="grad"]').inner_text() == "gradient op"
    matmul = page.locator('#program-graph .op-node[data-op-type="matmul"]').first
    assert "float32[-1, 4]" in matmul.inner_text()  # its output's dtype and shape
    assert "float32[-1, 4]" in matmul.get_attribute("title")
    assert ": float32[" in page.locator("#program-graph path.edge title").first.text_content()
    page.screenshot(path=artifacts("open"), full_page=True)

    nested = page.locator(f'#program-graph .block-graph[data-block="{branches[0]}"]')
    loop_body = page.locator(f'#program-graph .block-graph[data-block="{body}"]')
    assert nested.is_visible()
    page.locator('#program-graph .op-node[data-op-type="while"] > details > summary').first.click()
    loop_body.wait_for(state="hidden", timeout=WAIT_MS)
    assert not nested.is_visible()
    page.screenshot(path=artifacts("while_collapsed"), full_page=True)
    page.locator("#program-expand").click()
    nested.wait_for(state="visible", timeout=WAIT_MS)
    page.locator("#program-collapse").click()
    loop_body.wait_for(state="hidden", timeout=WAIT_MS)
    assert page.locator('#program-graph .block-graph[data-block="0"]').is_visible()


def test_a_scalar_logged_once_shows_its_point(page, logs):
    """A series of one point (the demo's test accuracy, logged once) draws a marker, not
    an empty chart."""
    logs["live"].add_scalar("live/once", 0.875, 3)
    logs["live"].flush()
    page.reload()  # (the tag is there when the page loads, not found by a later poll)
    page.locator("#tag-filter").fill("^live/once$")
    once = '.scalar-card[data-tag="live/once"]'
    wait_attr(page, once, "points", "1")  # (by selector: live polling may redraw the card)
    wait_js(page, "(s) => document.querySelectorAll(s).length === 1",
            f"{once} .scatterlayer .points path")
    assert traces(page, "live/once")[0]["y"] == [0.875]
