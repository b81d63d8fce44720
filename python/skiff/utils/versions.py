"""require_version (Paddle's paddle.utils.require_version): checks that the installed
framework's version lies in a range. skiff follows PaddlePaddle's API at
PADDLE_API_VERSION, so a Paddle program's version requirement is checked against that."""
import re

__all__ = ["require_version", "PADDLE_API_VERSION"]

PADDLE_API_VERSION = "3.3.1"  # the PaddlePaddle release whose API skiff follows
_VERSION = re.compile(r"\d+(\.\d+){0,3}")


def _parsed(param, value):
    """``value`` (a version string such as '2.4' or '1.5.2.0') as a tuple of 4 ints."""
    if not isinstance(value, str):
        raise TypeError(f"require_version: {param} must be a str, got {type(value).__name__}")
    if not _VERSION.fullmatch(value):
        raise ValueError(f"require_version: {param} must be a version like '1.5.2.0' "
                         f"(1 to 4 dot-separated integers), got {value!r}")
    parts = [int(p) for p in value.split(".")]
    return tuple(parts + [0] * (4 - len(parts)))


def require_version(min_version, max_version=None):
    """Raises Exception unless the Paddle API version skiff follows is >= min_version (and
    <= max_version when given); TypeError / ValueError for a version that is not a string
    of 1 to 4 dot-separated integers."""
    low = _parsed("min_version", min_version)
    high = None if max_version is None else _parsed("max_version", max_version)
    installed = _parsed("the installed version", PADDLE_API_VERSION)
    if high is None and installed < low:
        raise Exception(f"VersionError: PaddlePaddle version {min_version} or higher is "
                        f"required, but skiff follows PaddlePaddle {PADDLE_API_VERSION}")
    if high is not None and not low <= installed <= high:
        raise Exception(f"VersionError: PaddlePaddle version in [{min_version}, "
                        f"{max_version}] required, but skiff follows PaddlePaddle "
                        f"{PADDLE_API_VERSION}")
