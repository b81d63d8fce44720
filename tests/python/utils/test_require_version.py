"""skiff.utils.require_version checks the Paddle API version skiff follows (3.3.1), with
Paddle's errors; skiff.disable_signal_handler leaves the process's handlers alone."""
import signal

import paddle
import pytest

import skiff


@pytest.mark.parametrize("args", [("0.1.0",), ("0.1.0", "10.0.0"), ("3.3.1.0",), ("3",),
                                  ("3.4",), ("1.0", "2.0"), ("2.0", "1.0"), ("3.3.1", "3.3.1")])
def test_version_ranges_as_paddle(args):
    # the installed Paddle is the release skiff follows, so both answer alike
    assert paddle.__version__ == skiff.utils.versions.PADDLE_API_VERSION
    try:
        paddle.utils.require_version(*args)
        expected = None
    except Exception as e:  # noqa: BLE001 - Paddle raises a bare Exception
        expected = type(e)
    if expected is None:
        skiff.utils.require_version(*args)
    else:
        with pytest.raises(expected, match="VersionError"):
            skiff.utils.require_version(*args)


def test_bad_versions():
    with pytest.raises(TypeError, match="require_version: min_version must be a str"):
        skiff.utils.require_version(1)
    with pytest.raises(TypeError, match="require_version: max_version must be a str"):
        skiff.utils.require_version("1.0", 2)
    for bad in ("1.x", "3.3.1.0.1", "", "v1"):
        with pytest.raises(ValueError, match="require_version: min_version must be a version"):
            skiff.utils.require_version(bad)


def test_disable_signal_handler_keeps_the_handlers():
    before = {s: signal.getsignal(s) for s in (signal.SIGSEGV, signal.SIGTERM, signal.SIGINT)}
    assert skiff.disable_signal_handler() is None
    assert {s: signal.getsignal(s) for s in before} == before
