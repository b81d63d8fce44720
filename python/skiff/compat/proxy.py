"""enable_compat / disable_compat (Paddle's paddle.enable_compat): while enabled, an
``import torch`` (or ``torch.nn.functional`` ...) gets a module standing for skiff, so code
written for PyTorch runs on skiff. Each ``torch.<path>`` looks a name up first in
``skiff.compat.<path>`` (the functions and layers with PyTorch's signatures), then in
``skiff.<path>``.

Enabled everywhere (no ``scope``), a finder first on sys.meta_path gives the stand-ins to
every import of torch; a real torch imported before is set aside until disable_compat.
With ``scope`` (and for ``blocked_modules``), the modules of those packages imported from
then on run with their own ``__import__``, which gives their ``import torch`` statements
the stand-ins (the real torch for blocked ones), while every other module's imports find
the real torch, if installed."""
import builtins
import contextlib
import importlib
import importlib.abc
import importlib.machinery
import sys
import types
import warnings

__all__ = ["enable_compat", "disable_compat", "enable_torch_proxy", "disable_torch_proxy",
           "use_torch_proxy_guard", "extend_torch_proxy_blocked_modules"]

_TORCH = "torch"
_SKIFF = __name__.rsplit(".", 2)[0]  # "skiff"
_stand_ins = {}  # torch.<path> -> its TorchModule
_set_aside = {}  # the real torch's modules, out of sys.modules while compat is global


def _is_torch(name):
    return name == _TORCH or name.startswith(_TORCH + ".")


def _within(module, names):
    return any(module == n or module.startswith(n + ".") for n in names)


def _module_or_none(name):
    """The module ``name``, or None when there is none."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        return None


class TorchModule(types.ModuleType):
    """``torch.<path>`` while compat is on: a name is looked up in skiff.compat.<path>,
    then in skiff.<path>; a name that is a module gives the ``torch.<path>.<name>`` module."""

    def __init__(self, name, sources):
        super().__init__(name, f"skiff standing in for {name}")
        self.__dict__["_sources"] = sources
        self.__dict__["__path__"] = []  # a package: ``import torch.nn`` looks inside it

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        for source in self._sources:
            if hasattr(source, attr):
                value = getattr(source, attr)
                if isinstance(value, types.ModuleType):
                    return _torch_module(f"{self.__name__}.{attr}")
                return value
        raise AttributeError(f"module {self.__name__!r} (skiff's PyTorch compat) has no "
                             f"attribute {attr!r}")

    def __dir__(self):
        return sorted({n for s in self._sources for n in dir(s)} | set(self.__dict__))


def _sources(fullname):
    """[skiff.compat.<path>, skiff.<path>] (those that exist) for ``torch.<path>``."""
    path = fullname[len(_TORCH):]
    found = [_module_or_none(f"{_SKIFF}.compat{path}"), _module_or_none(f"{_SKIFF}{path}")]
    return [m for m in found if m is not None]


def _torch_module(fullname):
    """The stand-in module of ``fullname`` (torch or torch.<path>), made once."""
    module = _stand_ins.get(fullname)
    if module is None:
        sources = _sources(fullname)
        if not sources:
            raise ModuleNotFoundError(f"No module named {fullname!r} (skiff has nothing to "
                                      f"stand for it)", name=fullname)
        module = _stand_ins[fullname] = TorchModule(fullname, sources)
    return module


def _real_import(name, globals, locals, fromlist):
    """``import name`` of the real torch while the stand-ins fill sys.modules."""
    finder = _finder()
    stand_ins = {n: sys.modules.pop(n) for n in list(sys.modules)
                 if isinstance(sys.modules[n], TorchModule)}
    sys.modules.update(_set_aside)
    sys.meta_path.remove(finder)
    try:
        return builtins.__import__(name, globals, locals, fromlist, 0)
    finally:
        sys.meta_path.insert(0, finder)
        _set_aside_real_torch()
        sys.modules.update(stand_ins)


def _import_for(module_name):
    """The ``__import__`` of the code of module ``module_name`` (in the scope, or blocked):
    torch names go to the stand-ins (or, blocked, to the real torch), others as usual."""

    def scoped_import(name, globals=None, locals=None, fromlist=(), level=0):
        finder = _finder()
        if level == 0 and _is_torch(name) and finder is not None:
            if finder.applies(module_name):
                module = _torch_module(name)
                return module if fromlist else _torch_module(_TORCH)
            if finder.scope is None:  # blocked while the stand-ins fill sys.modules
                return _real_import(name, globals, locals, fromlist)
        return builtins.__import__(name, globals, locals, fromlist, level)

    return scoped_import


class _ScopedLoader(importlib.abc.Loader):
    """A module's own loader, which runs the module's code with _import_for's import."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__dict__["__builtins__"] = dict(vars(builtins),
                                               __import__=_import_for(module.__name__))
        self._loader.exec_module(module)

    def __getattr__(self, attr):
        return getattr(self._loader, attr)


class TorchProxyFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` as skiff's stand-ins when compat is global, and
    gives the modules of ``scope`` and ``blocked`` their own import of torch."""

    def __init__(self, scope, blocked):
        self.scope, self.blocked = scope, blocked or set()

    def applies(self, module_name):
        """Whether an import of torch by ``module_name`` gets the stand-ins."""
        if _within(module_name, self.blocked):
            return False
        return self.scope is None or _within(module_name, self.scope)

    def find_spec(self, fullname, path=None, target=None):
        if _is_torch(fullname):
            if self.scope is None and _sources(fullname):
                return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
            return None
        if not _within(fullname, (self.scope or set()) | self.blocked):
            return None
        for finder in sys.meta_path:  # the module's own spec, its loader wrapped
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _ScopedLoader(spec.loader)
                return spec
        return None

    def create_module(self, spec):
        return _torch_module(spec.name)

    def exec_module(self, module):
        pass


def _finder():
    return next((f for f in sys.meta_path if isinstance(f, TorchProxyFinder)), None)


def _names(param, value):
    """``value`` (None, a module name or an iterable of them) as a set of names."""
    if value is None:
        return None
    if isinstance(value, str):
        return {value}
    try:
        names = set(value)
    except TypeError:
        raise TypeError(f"enable_compat: {param} must be a module name or an iterable of "
                        f"them, got {type(value).__name__}") from None
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"enable_compat: {param} must hold module names (str), got {value!r}")
    return names


def _set_aside_real_torch():
    """Takes the real torch's modules out of sys.modules (so that imports find the
    stand-ins) until disable_compat."""
    for name, module in list(sys.modules.items()):
        if _is_torch(name) and not isinstance(module, TorchModule):
            _set_aside[name] = sys.modules.pop(name)


def enable_compat(*, scope=None, blocked_modules=None, backend="torch", silent=False):
    """Makes ``import torch`` give skiff's stand-in for PyTorch: everywhere (scope None) or
    only in the packages named by ``scope`` (imported from now on), never in
    ``blocked_modules``. Enabling again replaces the scope (with a warning unless
    ``silent``)."""
    if backend != "torch":
        raise ValueError(f"enable_compat: backend must be 'torch', got {backend!r}")
    scope, blocked = _names("scope", scope), _names("blocked_modules", blocked_modules)
    current = _finder()
    if current is not None:
        if not silent and (current.scope, current.blocked) != (scope, blocked or set()):
            warnings.warn(f"enable_compat: the PyTorch compat scope changes from "
                          f"{current.scope or 'global'} to {scope or 'global'}", UserWarning,
                          stacklevel=2)
        disable_compat()
    sys.meta_path.insert(0, TorchProxyFinder(scope, blocked))
    if scope is None:
        _set_aside_real_torch()


def disable_compat():
    """Ends the PyTorch compat: ``import torch`` finds the real PyTorch again (if
    installed; the one set aside, if it was imported before); the stand-ins leave
    sys.modules."""
    finder = _finder()
    if finder is not None:
        sys.meta_path.remove(finder)
    for name, module in list(sys.modules.items()):
        if isinstance(module, TorchModule):
            del sys.modules[name]
    sys.modules.update(_set_aside)
    _set_aside.clear()


def extend_torch_proxy_blocked_modules(modules):
    """Adds ``modules`` to the modules whose imports of torch are never proxied."""
    finder = _finder()
    if finder is None:
        raise RuntimeError("extend_torch_proxy_blocked_modules: the PyTorch compat is not "
                           "enabled (call enable_compat first)")
    finder.blocked |= _names("modules", modules)


@contextlib.contextmanager
def use_torch_proxy_guard(enable=True):
    """Within it the PyTorch compat is on (``enable``) or off; after it, as it was."""
    finder = _finder()
    saved = None if finder is None else (finder.scope, set(finder.blocked))
    if enable:
        enable_compat(silent=True)
    else:
        disable_compat()
    try:
        yield
    finally:
        if saved is None:
            disable_compat()
        else:
            enable_compat(scope=saved[0], blocked_modules=saved[1], silent=True)


enable_torch_proxy = enable_compat
disable_torch_proxy = disable_compat
