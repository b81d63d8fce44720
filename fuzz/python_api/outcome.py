"""Sorting an exception a call raised into a clean error (a user mistake reported as such) or
a bad one (an internal failure that reached the user).

    status, kind = classify(error, os.path.dirname(skiff.__file__))  # ("clean", None)

The rule, in order; the first that matches makes the error bad:
  1. empty message: the user learns nothing ("empty-message");
  2. the message names a C++ type or binding detail: std::bad_alloc, std::bad_cast,
     basic_string, vector::_M_range_check, nanobind's "incompatible function arguments"
     ("cxx-exception-text", "binding-signature");
  3. the type means the interpreter broke, wherever raised: RecursionError, SystemError,
     UnboundLocalError, NameError ("internal-type");
  4. the exception came from code skiff called, not from the call itself and not from a
     function the user passed in:
     - from a library (its innermost frame is in numpy or another package): the library's
       wording reached the user ("numpy-runtime", "library-runtime");
     - from a line of skiff's Python code that is no raise statement (so from Python
       itself), when its type is one no argument check raises (AttributeError, KeyError,
       ZeroDivisionError, IndexError, StopIteration, AssertionError) or its message is
       Python's or numpy's own wording ("object is not iterable", "list index out of
       range", "array is too big", ...) ("python-runtime", "numpy-runtime"); a signature
       error of a function skiff called for the user ("f() missing 1 required positional
       argument") is "python-signature": it names skiff's inner function, not the user's.
Everything else is clean: skiff.Error (C++ checks) past rules 1-3, ValueError/TypeError/...
raised by a raise statement in skiff, and Python's own signature errors at the call site."""

import re
import traceback

CXX_TEXT = re.compile(r"std::|bad_alloc|bad_cast|bad_function_call|basic_string|_M_\w+|"
                      r"vector::|map::at|\bstoi\b|\bstoll\b|\bstod\b|what\(\)|__cxa|"
                      r"terminate called")
BINDING_TEXT = re.compile(r"incompatible function arguments|nanobind|nb::|"
                          r"Unable to convert function return value|nb_func|pybind11")
CALL_SITE = "<fuzz>"  # the file name the child compiles each call's source under
INTERNAL_TYPES = ("RecursionError", "SystemError", "UnboundLocalError", "NameError")
SIGNATURE_TEXT = re.compile(r"takes \d+ positional arguments? but|got an unexpected keyword "
                            r"argument|missing \d+ required (positional|keyword)|got multiple "
                            r"values for argument|takes no arguments")
UNCHECKED_TYPES = ("AttributeError", "KeyError", "ZeroDivisionError", "IndexError",
                   "StopIteration", "AssertionError")
PYTHON_TEXT = re.compile(
    r"object is not (iterable|subscriptable|callable)|has no attribute|"
    r"unsupported operand type|not supported between instances|"
    r"(list|tuple|string) (assignment )?index out of range|pop from empty|"
    r"cannot be interpreted as an integer|too large to convert|int too big to convert|"
    r"(too many|not enough) values to unpack|invalid literal for int|"
    r"could not convert string to float|must be real number, not|"
    r"can't multiply sequence|can only concatenate|object of type .* has no len|"
    r"unhashable type|division by zero|math domain error|"
    r"object cannot be interpreted|argument must be a string or a|"
    r"int\(\) argument must be|float\(\) argument must be|bad operand type for|"
    r"object does not support item assignment|descriptor '.*' (for|of)")
NUMPY_TEXT = re.compile(
    r"array is too big|maximum supported dimension|setting an array element with a sequence|"
    r"could not be broadcast|operands could not be broadcast|cannot reshape array|"
    r"is out of bounds for axis|too many indices for array|out of bounds for array of "
    r"dimension|negative dimensions are not allowed|Maximum allowed size exceeded|"
    r"only integer scalar arrays|inhomogeneous shape|Cannot cast ufunc|"
    r"ufunc '\w+' (not supported|did not contain)|data type .* not understood|"
    r"Python integer .* out of bounds for|Unable to allocate|truth value of an array")


def classify(error, package_dir):
    """("clean", None) or ("bad", kind) for an exception raised by a fuzzed call;
    package_dir is skiff's source folder, whose frames count as skiff's code."""
    type_name = type(error).__name__
    text = str(error)
    if not text.strip() and type_name != "KeyError":
        return "bad", "empty-message"
    if CXX_TEXT.search(text):
        return "bad", "cxx-exception-text"
    if BINDING_TEXT.search(text):
        return "bad", "binding-signature"
    if type_name in INTERNAL_TYPES:
        return "bad", "internal-type"
    frame = raising_frame(error)
    if frame is None or frame.filename == CALL_SITE or not _called_from(error, package_dir):
        return "clean", None  # the call's own signature, or a function the user passed in
    if not _in_package(frame.filename, package_dir):
        return "bad", "numpy-runtime" if "numpy" in frame.filename else "library-runtime"
    if (frame.line or "").lstrip().startswith("raise") or _is_skiff_error(error):
        return "clean", None
    if type_name == "TypeError" and SIGNATURE_TEXT.search(text):
        return "bad", "python-signature"
    if type_name in UNCHECKED_TYPES or PYTHON_TEXT.search(text):
        return "bad", "python-runtime"
    if NUMPY_TEXT.search(text):
        return "bad", "numpy-runtime"
    return "clean", None


def raising_frame(error):
    """The innermost Python frame of error's traceback (a FrameSummary), or None."""
    frames = traceback.extract_tb(error.__traceback__)
    return frames[-1] if frames else None


def site(error, package_dir):
    """Where in skiff the error was raised: "tensor/joining.py:88 in hsplit", or ""."""
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if _in_package(frame.filename, package_dir):
            return f"{_relative(frame.filename, package_dir)}:{frame.lineno} in {frame.name}"
    return ""


def _is_skiff_error(error):
    """skiff.Error: a C++ check's report, whose text names the op."""
    return type(error).__module__.startswith("skiff")


def _called_from(error, package_dir):
    return any(_in_package(frame.filename, package_dir)
               for frame in traceback.extract_tb(error.__traceback__))


def _in_package(filename, package_dir):
    return filename.startswith(package_dir)


def _relative(filename, package_dir):
    return filename[len(package_dir):].lstrip("/")
