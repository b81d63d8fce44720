"""What to_static reports and what it leaves alone (paddle.jit.set_verbosity,
set_code_level, ignore_module). Messages go to stderr, and to stdout too when asked;
the environment variables TRANSLATOR_VERBOSITY and TRANSLATOR_CODE_LEVEL set the
starting levels."""
import ast
import os
import sys
import types

__all__ = ["set_verbosity", "set_code_level", "ignore_module"]

# The conversion stages whose code set_code_level can show, in order.
STAGES = ("for loops lowered to while", "returns, break and continue restructured",
          "control flow converted")


def _env_level(name, default):
    try:
        return int(os.environ.get(name, default))
    except ValueError:
        return default


_state = {"verbosity": _env_level("TRANSLATOR_VERBOSITY", 0), "verbosity_stdout": False,
          "code_level": _env_level("TRANSLATOR_CODE_LEVEL", -1), "code_stdout": False}
_ignored = set()


def _level(level, where):
    if isinstance(level, bool) or not isinstance(level, int):
        raise TypeError(f"{where}: level must be an int, got {type(level).__name__}")
    return level


def set_verbosity(level=0, also_to_stdout=False):
    """Messages about what to_static converts: 0 none; 1 each function converted;
    2 also the functions called from converted code that it leaves as they are."""
    _state["verbosity"] = _level(level, "set_verbosity")
    _state["verbosity_stdout"] = bool(also_to_stdout)


def set_code_level(level=100, also_to_stdout=False):
    """Shows each converted function's code after conversion stage ``level`` (1: for
    loops lowered, 2: returns, break and continue restructured, 3 or more: the final
    code); a level below 1 shows none."""
    _state["code_level"] = _level(level, "set_code_level")
    _state["code_stdout"] = bool(also_to_stdout)


def ignore_module(modules):
    """Functions defined in these modules (and their submodules) run as written inside
    to_static code instead of being converted."""
    if isinstance(modules, types.ModuleType):
        modules = [modules]
    if not isinstance(modules, (list, tuple, set)):
        raise TypeError(f"ignore_module: modules must be a list of modules, got "
                        f"{type(modules).__name__}")
    for m in modules:
        if not isinstance(m, types.ModuleType):
            raise TypeError(f"ignore_module: modules must hold modules, got "
                            f"{type(m).__name__}")
        _ignored.add(m.__name__)


def is_ignored(fn):
    """Whether ``fn`` comes from a module given to ignore_module."""
    name = getattr(fn, "__module__", None) or ""
    return any(name == m or name.startswith(m + ".") for m in _ignored)


def _emit(text, to_stdout):
    print(text, file=sys.stderr)
    if to_stdout:
        print(text, file=sys.stdout)


def log(level, message):
    """Prints ``message`` when the verbosity is at least ``level``."""
    if _state["verbosity"] >= level:
        _emit(f"[to_static] {message}", _state["verbosity_stdout"])


def show_code(stage, fdef, qualname):
    """Prints the code of ``fdef`` after conversion stage ``stage`` (1-based) if the
    code level asks for it."""
    level = _state["code_level"]
    if level < 1:
        return
    if stage != min(level, len(STAGES)):
        return
    _emit(f"[to_static] {qualname} after stage {stage} ({STAGES[stage - 1]}):\n"
          f"{ast.unparse(fdef)}", _state["code_stdout"])
