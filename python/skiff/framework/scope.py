"""The scope: the variables of running programs by name. Parameters of static programs
live in the global scope between runs; scope_guard swaps it for a block of code."""
import contextlib

import numpy as np

from .. import _C
from .._C import Tensor
from .dense_tensor import DenseTensor

__all__ = ["Scope", "global_scope", "scope_guard"]


class _ScopeVar:
    def __init__(self, scope, name):
        self._scope, self._name = scope, name

    def get_tensor(self):
        return DenseTensor(lambda: self._scope._scope.get(self._name),
                           lambda value: self._scope.set(self._name, value),
                           f"scope variable '{self._name}'")


class Scope:
    """Variables of running programs by name (parameters live here between runs)."""

    def __init__(self):
        self._scope = _C.Scope()

    def find_var(self, name):
        return _ScopeVar(self, name) if self._scope.has_var(name) else None

    def var(self, name):
        return _ScopeVar(self, name)

    def get(self, name):
        """The value of ``name`` as a Tensor sharing memory, or None."""
        return self._scope.get(name)

    def set(self, name, value):
        """Sets ``name`` to a Tensor's value or a copy of an array."""
        if not isinstance(value, Tensor):
            value = np.ascontiguousarray(value)
        self._scope.set(name, value)

    def local_var_names(self):
        return self._scope.var_names()


_global_scope = Scope()


def global_scope():
    """The scope Executor.run uses when none is given."""
    return _global_scope


@contextlib.contextmanager
def scope_guard(scope):
    """Within it ``scope`` is the global scope."""
    global _global_scope
    saved, _global_scope = _global_scope, scope
    try:
        yield
    finally:
        _global_scope = saved
