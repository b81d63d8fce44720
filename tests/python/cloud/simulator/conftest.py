"""Points SKIFF_POLLUX_DATA at the Pollux artifact's data beside the repository
(../shared/data/pollux-osdi21 from its root) when the variable is unset and the folder is
there; the ``pollux_data`` fixture skips a test without it."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[4]
BESIDE = ROOT.parent / "shared" / "data" / "pollux-osdi21"

if "SKIFF_POLLUX_DATA" not in os.environ and BESIDE.is_dir():
    os.environ["SKIFF_POLLUX_DATA"] = str(BESIDE)


@pytest.fixture
def pollux_data():
    """The Pollux data folder (SKIFF_POLLUX_DATA), else the test is skipped."""
    data = os.environ.get("SKIFF_POLLUX_DATA")
    if not data or not os.path.isdir(os.path.join(data, "traces")):
        pytest.skip("the Pollux artifact's data is absent: set SKIFF_POLLUX_DATA to its "
                    "folder (workloads/, traces/, results-jobload/)")
    return data
