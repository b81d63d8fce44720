"""What the Python workload scripts of bench/py share: the import paths (bench/ for the
peers' values and code, the skiff package from a build tree or an installed one) and the
result lines bench/compare.py's parser reads."""

import os
import sys

PY_DIR = os.path.dirname(os.path.abspath(__file__))
BENCH_DIR = os.path.dirname(PY_DIR)
REPO_DIR = os.path.dirname(BENCH_DIR)
if BENCH_DIR not in sys.path:
    sys.path.insert(0, BENCH_DIR)


def build_dir():
    """The CMake build directory whose skiff package and bench binaries are used:
    $SKIFF_BUILD_DIR, else <repo>/build."""
    return os.path.abspath(os.environ.get("SKIFF_BUILD_DIR", os.path.join(REPO_DIR, "build")))


def import_skiff():
    """skiff from <build>/python when that build has the package, else the installed one."""
    package = os.path.join(build_dir(), "python")
    if os.path.isdir(os.path.join(package, "skiff")) and package not in sys.path:
        sys.path.insert(0, package)
    import skiff

    return skiff


def print_result(name, ms, loss=None, checksum=None):
    """RESULT <name> <ms>, and LOSS <name> <first> <later> / CHECKSUM <name> <value>."""
    print(f"RESULT {name} {ms:.4f}")
    if loss is not None:
        print(f"LOSS {name} {loss[0]:.6f} {loss[1]:.6f}")
    if checksum is not None:
        print(f"CHECKSUM {name} {checksum:.6f}")
    sys.stdout.flush()
