"""Eager (the default) or static mode. In static mode the functions of skiff append
ops to the current program instead of running them."""
from .. import _C


class _Mode:
    _static = False

    @property
    def static(self):
        return self._static

    @static.setter
    def static(self, on):
        # Tensor's C operators need the mode too (in static mode they build ops).
        self._static = bool(on)
        _C.set_static_mode(self._static)


mode = _Mode()


def in_dynamic_mode():
    """True in eager mode (the default)."""
    return not mode.static


def enable_static():
    """Switches to static mode: ops build programs (skiff.static)."""
    mode.static = True


def disable_static():
    """Switches back to eager mode."""
    mode.static = False
