"""The distributed tests run once, in the uncapped pass: what they test (collectives,
rendezvous, membership) does not depend on the kernels' instruction set, and each starts
processes for tens of seconds."""
import os

import pytest


def pytest_collection_modifyitems(config, items):
    if not os.environ.get("SKIFF_MAX_CPU_ISA"):
        return
    skip = pytest.mark.skip(reason="distributed tests run in the uncapped pass only")
    here = os.path.dirname(os.path.abspath(__file__))
    for item in items:
        if str(item.fspath).startswith(here):
            item.add_marker(skip)
