"""Helpers of Paddle's paddle.utils: run_check, unique_name, try_import, deprecated,
require_version."""
from . import unique_name
from .deprecated import deprecated
from .install_check import run_check
from .lazy_import import try_import
from .versions import require_version

__all__ = ["run_check", "unique_name", "try_import", "deprecated", "require_version"]
