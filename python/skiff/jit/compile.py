"""skiff.jit.compile: a saved program (jit.save / save_inference_model) compiled to C++
and built into a standalone executable, and optionally a shared library with a C API."""
import os

from .. import _C

__all__ = ["compile"]


def compile(path, output_dir, target="x86-64", shared_library=False, embed_params=True,
            feeds=None, fetches=None, cpu=None):
    """Compiles ``path`` (a .skmodel, or the prefix given to jit.save) into ``output_dir``:
    model.cc and the executable ``model`` (``model --in NAME=FILE.npy ... --out DIR``), and
    with ``shared_library`` libmodel.so + model.h. ``target``: 'x86-64', 'portable' or
    'aarch64'. ``cpu``: the CPU the model's code is compiled for ('x86-64-v3', the default on
    x86-64: any AVX2 CPU; 'x86-64-v4': AVX-512; 'x86-64-v2', 'x86-64', 'native'); the
    executable stops with a message on a CPU without its features. Returns a dict of the
    files written and the model's inputs and outputs."""
    model = path if path.endswith(".skmodel") else path + ".skmodel"
    if not os.path.exists(model):
        raise _C.Error(f"jit.compile: no program at {model!r} (write one with skiff.jit.save)")
    return _C.compile_model_file(model, os.path.abspath(output_dir), target, shared_library,
                                 embed_params, list(feeds or []), list(fetches or []),
                                 cpu or "")
