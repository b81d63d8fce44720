"""Where user code called into skiff: "file:line" of the innermost frame outside the
skiff package, recorded in each op's "op_source" attribute so that errors raised while
building or running a program point at the user's line."""
import contextlib
import functools
import os
import sys
import warnings

# The package's folder (this file is skiff/framework/source.py), as given and as resolved.
_PACKAGE_DIRS = tuple({os.path.dirname(os.path.dirname(f(__file__))) + os.sep
                       for f in (str, os.path.abspath, os.path.realpath)})
# Library frames that sit between skiff and its caller (with-statements, decorators).
_PASS_THROUGH = (os.path.abspath(contextlib.__file__), os.path.abspath(functools.__file__))


def _outside(filename):
    return not (filename.startswith(_PACKAGE_DIRS) or filename in _PASS_THROUGH)


def user_source():
    """"file:line" of the nearest caller outside skiff ("" when there is none)."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if _outside(filename) and not filename.startswith("<frozen"):
            return f"{filename}:{frame.f_lineno}"
        frame = frame.f_back
    return ""


def warn_user(message, category=UserWarning):
    """warnings.warn pointing at the nearest caller outside skiff."""
    frame, level = sys._getframe(1), 1
    while frame is not None and not (_outside(frame.f_code.co_filename) and
                                     not frame.f_code.co_filename.startswith("<frozen")):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level + 1 if frame is not None else 2)
