"""The ``deprecated`` decorator (Paddle's paddle.utils.deprecated)."""
import functools
import inspect
import warnings

__all__ = ["deprecated"]


def deprecated(update_to="", since="", reason="", level=0):
    """Marks a function deprecated: notes it in the docstring; level 1 warns on each call
    (DeprecationWarning), level 2 raises RuntimeError on each call, level 0 only notes."""
    if not isinstance(level, int) or not 0 <= level <= 2:
        raise ValueError(f"deprecated: level must be 0, 1 or 2, got {level!r}")
    for arg, value in (("update_to", update_to), ("since", since), ("reason", reason)):
        if not isinstance(value, str):
            raise TypeError(f"deprecated: {arg} must be a str, got {type(value).__name__}")

    def decorator(func):
        name = f"{func.__module__}.{func.__name__}"
        msg = f'API "{name}" is deprecated'
        if since.strip():
            msg += f" since {since.strip()}"
        msg += ", and will be removed in future versions."
        if update_to.strip():
            msg += f' Please use "{update_to.strip()}" instead.'
        if reason.strip():
            msg += f"\n    Reason: {reason.strip()}"
        if func.__doc__:
            func.__doc__ = "\n\nWarning:\n    " + msg + "\n\n" + inspect.cleandoc(func.__doc__)
        if level == 0:
            return func

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            if level == 2:
                raise RuntimeError(f'API "{name}" has been deprecated.')
            warnings.warn(msg, category=DeprecationWarning, stacklevel=2)
            return func(*args, **kwargs)
        return wrapper
    return decorator
