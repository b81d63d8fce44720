"""The board's tests run once, in the uncapped pass: what they test (event files, the
server, the page in a browser) does not depend on the kernels' instruction set."""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("SKIFF_MAX_CPU_ISA"):
        return
    skip = pytest.mark.skip(reason="board tests run in the uncapped pass only")
    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(skip)
