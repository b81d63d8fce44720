"""enable_compat / disable_compat (Paddle's paddle.enable_compat): while enabled, an
``import torch`` (or ``torch.nn.functional`` ...) gets a module standing for skiff, so code
written for PyTorch runs on skiff. Each ``torch.<path>`` looks a name up first in
``skiff.compat.<path>`` (the functions and layers with PyTorch's signatures), then in
``skiff.<path>``. A finder on sys.meta_path makes these modules; with ``scope`` it does so
only for imports made by the named packages (others find the real torch, if installed).
Python keeps each imported module in sys.modules, so the first import of torch decides
what later imports of it get until disable_compat, which removes the stand-ins."""
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
    module = sys.modules.get(fullname)
    if isinstance(module, TorchModule):
        return module
    sources = _sources(fullname)
    if not sources:
        raise ModuleNotFoundError(f"No module named {fullname!r} (skiff has no "
                                  f"{fullname[len(_TORCH):] or 'root'} to stand for it)",
                                  name=fullname)
    module = TorchModule(fullname, sources)
    sys.modules[fullname] = module
    return module


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


def _within(module, names):
    return any(module == n or module.startswith(n + ".") for n in names)


def _importer():
    """The name of the module whose import statement is running (past importlib's own
    frames and this file's)."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not name.startswith("importlib") and name != __name__:
            return name
        frame = frame.f_back
    return ""


class TorchProxyFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.*`` as skiff's stand-ins, for imports made within
    ``scope`` (None: everywhere) and not within ``blocked`` modules."""

    def __init__(self, scope, blocked):
        self.scope, self.blocked = scope, blocked or set()

    def applies(self, importer):
        if _within(importer, self.blocked):
            return False
        return self.scope is None or _within(importer, self.scope)

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _TORCH and not fullname.startswith(_TORCH + "."):
            return None
        if not self.applies(_importer()) or not _sources(fullname):
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return _torch_module(spec.name)

    def exec_module(self, module):
        pass


def _finder():
    return next((f for f in sys.meta_path if isinstance(f, TorchProxyFinder)), None)


def enable_compat(*, scope=None, blocked_modules=None, backend="torch", silent=False):
    """Makes ``import torch`` give skiff's stand-in for PyTorch: everywhere (scope None) or
    only in the packages named by ``scope``, never in ``blocked_modules``. Enabling again
    replaces the scope (with a warning unless ``silent``)."""
    if backend != "torch":
        raise ValueError(f"enable_compat: backend must be 'torch', got {backend!r}")
    scope, blocked = _names("scope", scope), _names("blocked_modules", blocked_modules)
    current = _finder()
    if current is not None:
        if not silent and (current.scope, current.blocked) != (scope, blocked or set()):
            warnings.warn(f"enable_compat: the PyTorch compat scope changes from "
                          f"{current.scope or 'global'} to {scope or 'global'}", UserWarning,
                          stacklevel=2)
        current.scope, current.blocked = scope, blocked or set()
        return
    sys.meta_path.insert(0, TorchProxyFinder(scope, blocked))


def disable_compat():
    """Ends the PyTorch compat: ``import torch`` finds the real PyTorch again (if
    installed); the stand-in modules leave sys.modules."""
    finder = _finder()
    if finder is not None:
        sys.meta_path.remove(finder)
    for name, module in list(sys.modules.items()):
        if isinstance(module, TorchModule):
            del sys.modules[name]


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
