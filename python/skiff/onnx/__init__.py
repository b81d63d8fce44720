"""skiff.onnx: export(layer, path, input_spec=[...]) writes a Layer (or a to_static
function) as the ONNX model path.onnx, as paddle.onnx.export does."""
from .export import export

__all__ = ["export"]
