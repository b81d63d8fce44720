"""pytest setup for the Python package: import skiff from a build tree's python/ folder
(SKIFF_BUILD_DIR, default <checkout>/build), where the package sits beside skiff._C."""

import pathlib
import sys

import numpy as np
import pytest

import os

CHECKOUT = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("SKIFF_BUILD_DIR", CHECKOUT / "build"))
sys.path.insert(0, str(BUILD_DIR / "python"))


def _to_numpy(value):
    if isinstance(value, np.ndarray):
        return value
    if callable(getattr(value, "numpy", None)):
        return np.asarray(value.numpy())
    return np.asarray(value)


@pytest.fixture(scope="session")
def as_numpy():
    """Function: a batch field as numpy, whether the DataLoader yielded arrays or Tensors."""
    return _to_numpy


@pytest.fixture(scope="session")
def paddle():
    """The PaddlePaddle module used as a reference; tests using it skip where it is missing."""
    return pytest.importorskip("paddle")


# Folders whose tests run once, in ctest's uncapped pass: what they test does not depend on
# the kernels' instruction set, and they start processes for tens of seconds. ctest's capped
# pass (python_tests.avx2) sets SKIFF_SKIP_UNCAPPED_ONLY; run by hand with SKIFF_MAX_CPU_ISA
# alone, they run capped too (docs/cpu.md: checking a change on another instruction set).
UNCAPPED_ONLY = {
    "distributed": "collectives, rendezvous, membership",
    "board": "event files, the server, the page in a browser",
    "cloud": "the job service and its jobs as processes",
    "serve": "the inference server as a process, Triton's client",
    "streams": "redis-server, trainers and scorers killed and restarted",
}


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("SKIFF_SKIP_UNCAPPED_ONLY"):
        return
    here = pathlib.Path(__file__).resolve().parent
    for item in items:
        folder = pathlib.Path(str(item.fspath)).resolve().relative_to(here).parts[0]
        if folder in UNCAPPED_ONLY:
            item.add_marker(pytest.mark.skip(
                reason=f"{folder} tests ({UNCAPPED_ONLY[folder]}) run in the uncapped pass only"))


# ---- the web pages' tests (skiff board, skiff cloud, JupyterLab) ----------------------------

@pytest.fixture(scope="module")
def browser():
    """Headless Chromium (the system's, SKIFF_CHROMIUM), through Playwright; the tests that
    use it are skipped with the reason when either is missing."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
    chromium = os.environ.get("SKIFF_CHROMIUM", "/usr/bin/chromium")
    if not os.path.exists(chromium):
        pytest.skip(f"no Chromium at {chromium} (Debian package 'chromium')")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium,
            args=["--use-angle=swiftshader", "--enable-unsafe-swiftshader"])  # WebGL (board)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def artifacts(request, tmp_path):
    """name -> the path of a screenshot of this test: under SKIFF_TEST_ARTIFACTS (else the
    test's tmp_path), in a folder named for the test module."""
    folder = pathlib.Path(os.environ.get("SKIFF_TEST_ARTIFACTS") or tmp_path) / \
        request.module.__name__.rsplit(".", 1)[-1]
    folder.mkdir(parents=True, exist_ok=True)
    return lambda name: str(folder / f"{request.node.name}_{name}.png")
