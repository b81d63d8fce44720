"""skiff.onnx.export: the layer's forward traced like jit.save (Python control flow on
Tensors becomes while / if ops), pruned to the inference program, then written by the
C++ exporter (skiff/export/onnx/) with the parameters as initializers."""
import os

from .. import _C
from .. import static
from ..jit.io import _static_forward
from ..jit.static_control import is_static_var

Error = _C.Error


def _inference_program(layer, input_spec):
    """(program, scope, input names): the pruned inference program of ``layer`` traced
    as jit.save traces it, a scope holding the parameters it reads, and the InputSpecs'
    names for the model's inputs ("" keeps the program's)."""
    static_fn = _static_forward(layer)
    concrete = static_fn.concrete_program_specify_input_spec(input_spec)
    spec = static_fn.input_spec or input_spec or []
    block = concrete.main_program.global_block()
    feeds = [block.var(n) for n in concrete.input_names]
    fetches = [leaf for leaf in concrete.out_leaves if is_static_var(leaf)]
    if not fetches:
        raise Error("onnx.export: the forward returns no Tensor computed from its inputs")
    pruned = static.io.normalize_program(concrete.main_program, feeds, fetches)
    scope = _C.Scope()
    for name, tensor in zip(concrete.captured_names, concrete.captured):
        if pruned.desc.var(0, name) is not None:
            scope.set(name, tensor)
    names = [getattr(s, "name", None) or "" if type(s).__name__ == "InputSpec" else ""
             for s in spec]
    if len(names) != len(concrete.input_names):
        names = []
    return pruned, scope, names


def export(layer, path, input_spec=None, opset_version=17, **configs):
    """Writes ``layer``'s forward (a Layer or a to_static function, traced with
    ``input_spec``: InputSpecs or example Tensors) as the ONNX model path + ".onnx"
    at ``opset_version`` (13 to 23). An op with no ONNX mapping raises skiff.Error
    naming it and the line that created it."""
    opset = int(opset_version)
    if not _C.onnx_min_opset <= opset <= _C.onnx_max_opset:
        raise ValueError(f"onnx.export: opset_version must be in [{_C.onnx_min_opset}, "
                         f"{_C.onnx_max_opset}], got {opset_version}")
    program, scope, names = _inference_program(layer, input_spec)
    file = path if path.endswith(".onnx") else path + ".onnx"
    folder = os.path.dirname(file)
    if folder:
        os.makedirs(folder, exist_ok=True)
    _C.export_onnx(program.desc, scope, file, opset, names)
    return file
