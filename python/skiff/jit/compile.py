"""skiff.jit.compile: a saved program (jit.save / save_inference_model) compiled to C++
and built into a standalone executable, and optionally a shared library with a C API."""
import os

from .. import _C

__all__ = ["compile"]


def compile(path, output_dir, target="x86-64", shared_library=False, embed_params=True,
            feeds=None, fetches=None):
    """Compiles ``path`` (a .skmodel, or the prefix given to jit.save) into ``output_dir``:
    model.cc and the executable ``model`` (``model --in NAME=FILE.npy ... --out DIR``), and
    with ``shared_library`` libmodel.so + model.h. ``target``: 'x86-64', 'portable' or
    'aarch64'. Returns a dict of the files written and the model's inputs and outputs."""
    model = path if path.endswith(".skmodel") else path + ".skmodel"
    if not os.path.exists(model):
        raise _C.Error(f"jit.compile: no program at {model!r} (write one with skiff.jit.save)")
    return _C.compile_model_file(model, os.path.abspath(output_dir), target, shared_library,
                                 embed_params, list(feeds or []), list(fetches or []))
