"""Eager (the default) or static mode. In static mode the functions of skiff append
ops to the current program instead of running them."""
from .. import _C


class _Mode:
    _static = False
    # The hooks that receive every op call (framework.core.hooked), innermost last; a
    # plain attribute, read on every op call (set it with set_hooks).
    hooks = ()

    @property
    def static(self):
        return self._static

    @static.setter
    def static(self, on):
        self._static = bool(on)
        self._route()

    def set_hooks(self, hooks):
        self.hooks = tuple(hooks)
        self._route()

    def _route(self):
        # Tensor's C operators and _C.Op objects run ops straight only while skiff is
        # eager and unhooked; otherwise they call the dispatch point (framework.core).
        _C.set_python_dispatch(self._static or bool(self.hooks))


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
