"""Eager (the default) or static mode. In static mode the functions of skiff append
ops to the current program instead of running them."""
from .. import _C


class _Mode:
    _static = False
    # Set by skiff.static: appends an op to the current block and returns its
    # output variables, shaped like an eager call's result.
    static_apply = None

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
    from .. import static  # noqa: F401  (installs the static hook)
    mode.static = True


def disable_static():
    """Switches back to eager mode."""
    mode.static = False
