"""The public API the fuzzer calls: every public callable of the modules in MODULES, the layer
classes of skiff.nn, and the methods and operators of skiff.Tensor, less SKIPPED_NAMES.

    for target in api_targets(skiff):
        target.name, target.kind        # "skiff.linalg.svd", "function"

Kinds: "function" (called), "class" (constructed, then one public method called), "layer"
(constructed, then called on inputs), "method" (a Tensor method; its first argument is
the tensor) and "operator" (a Tensor dunder, written as the operator)."""

import inspect
import types

# Modules whose public callables are targets, in order: an object two modules export is
# fuzzed under the first name. Optional ones are left out when the package lacks them.
MODULES = ["skiff", "skiff.linalg", "skiff.nn.functional", "skiff.nn", "skiff.nn.initializer",
           "skiff.nn.utils", "skiff.distribution", "skiff.metric", "skiff.autograd",
           "skiff.vision.transforms", "skiff.amp", "skiff.regularizer", "skiff.optimizer",
           "skiff.optimizer.lr", "skiff.quantization", "skiff.device", "skiff.device.cuda"]
OPTIONAL_MODULES = ["skiff.fft", "skiff.signal", "skiff.sparse", "skiff.special"]

# Public modules left out as a whole, and why.
SKIPPED_MODULES = {
    "skiff.board": "starts an HTTP server and writes event files",
    "skiff.distributed": "starts processes, opens sockets, waits on rendezvous",
    "skiff.io": "DataLoader starts worker processes; datasets read files",
    "skiff.jit": "to_static compiles sources and save/load write files",
    "skiff.onnx": "export writes files",
    "skiff.static": "static mode changes how every later call in the batch runs",
    "skiff.hapi": "Model.fit/evaluate run training loops and write checkpoints",
    "skiff.callbacks": "callbacks need a hapi Model and write logs",
    "skiff.utils": "run_check trains a model; try_import imports any module named",
    "skiff.vision.datasets": "reads and downloads data files",
    "skiff.vision.image": "reads image files",
}

# Single callables left out, and why. Global state would make a batch's later calls depend
# on an earlier one, so a recorded call would not replay alone.
SKIPPED_NAMES = {
    "skiff.save": "writes a file",
    "skiff.load": "reads a file",
    "skiff.enable_static": "global state: switches every later call to static mode",
    "skiff.disable_static": "global state: the mode switch's other half",
    "skiff.set_default_dtype": "global state: changes the dtype of every later tensor",
    "skiff.set_device": "global state: moves every later tensor",
    "skiff.set_flags": "global state: flags such as nan checks change later calls",
    "skiff.set_grad_enabled": "global state: turns autograd off for later calls",
    "skiff.autograd.set_grad_enabled": "global state: as skiff.set_grad_enabled",
    "skiff.device.set_max_cpu_isa": "global state: changes the kernels of later calls",
    "skiff.nn.initializer.set_global_initializer": "global state: later layers' weights",
    "skiff.distribution.register_kl": "global state: registers a KL function",
    "skiff.vision.transforms.set_image_backend": "global state: image backend",
    "skiff.Model": "hapi: its methods train and write checkpoints",
}
# Methods never called on a constructed object: files, or state beyond the call.
SKIPPED_METHODS = {"save": "writes files", "load": "reads files",
                   "to_static": "compiles the forward into a program (jit, skipped)"}

# Tensor dunders that are fuzzed, with the operator each is written as ({0} self, {1} other).
OPERATORS = {
    "__add__": "({0} + {1})", "__sub__": "({0} - {1})", "__mul__": "({0} * {1})",
    "__truediv__": "({0} / {1})", "__floordiv__": "({0} // {1})", "__mod__": "({0} % {1})",
    "__pow__": "({0} ** {1})", "__matmul__": "({0} @ {1})", "__and__": "({0} & {1})",
    "__or__": "({0} | {1})", "__xor__": "({0} ^ {1})", "__lshift__": "({0} << {1})",
    "__rshift__": "({0} >> {1})", "__eq__": "({0} == {1})", "__ne__": "({0} != {1})",
    "__lt__": "({0} < {1})", "__le__": "({0} <= {1})", "__gt__": "({0} > {1})",
    "__ge__": "({0} >= {1})", "__getitem__": "{0}[{1}]", "__neg__": "(-{0})",
    "__invert__": "(~{0})", "__abs__": "abs({0})", "__bool__": "bool({0})",
    "__int__": "int({0})", "__float__": "float({0})", "__len__": "len({0})",
    "__index__": "{0}.__index__()", "__iter__": "list({0})", "__array__": "np.asarray({0})",
    "__radd__": "{0}.__radd__({1})", "__rsub__": "{0}.__rsub__({1})",
    "__rmul__": "{0}.__rmul__({1})", "__rtruediv__": "{0}.__rtruediv__({1})",
    "__rfloordiv__": "{0}.__rfloordiv__({1})", "__rmod__": "{0}.__rmod__({1})",
    "__rpow__": "{0}.__rpow__({1})", "__rmatmul__": "{0}.__rmatmul__({1})",
    "__setitem__": "y = {0}; y[{1}] = {2}",
}


class Target:
    """One fuzzed callable: its dotted name, its kind, and the object itself."""

    def __init__(self, name, kind, obj):
        self.name = name
        self.kind = kind
        self.obj = obj

    def __repr__(self):
        return f"Target({self.name!r}, {self.kind!r})"


def api_targets(skiff):
    """All targets of the imported skiff package, sorted by name (the order seeds rely on)."""
    seen = set()
    found = []
    for module_name in MODULES + OPTIONAL_MODULES:
        module = _module(skiff, module_name)
        if module is None:
            continue
        for name in _public_names(module):
            obj = getattr(module, name, None)
            full = f"{module_name}.{name}"
            if not _is_own_callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))  # a skipped object stays skipped under its other names
            if full in SKIPPED_NAMES:
                continue
            found.append(Target(full, _kind(skiff, obj), obj))
    found.extend(_tensor_targets(skiff))
    return sorted(found, key=lambda target: target.name)


def _tensor_targets(skiff):
    found = []
    for name in sorted(dir(skiff.Tensor)):
        attr = inspect.getattr_static(skiff.Tensor, name)
        if isinstance(attr, property) or not callable(getattr(skiff.Tensor, name)):
            continue
        if name in OPERATORS:
            found.append(Target(f"skiff.Tensor.{name}", "operator", getattr(skiff.Tensor, name)))
        elif not name.startswith("_") and name not in SKIPPED_METHODS:
            found.append(Target(f"skiff.Tensor.{name}", "method", getattr(skiff.Tensor, name)))
    return found


def _module(skiff, dotted):
    module = skiff
    for part in dotted.split(".")[1:]:
        module = getattr(module, part, None)
        if not isinstance(module, types.ModuleType):
            return None
    return module


def _public_names(module):
    names = getattr(module, "__all__", None) or dir(module)
    return sorted(name for name in names if not name.startswith("_"))


def _is_own_callable(obj):
    if obj is None or isinstance(obj, types.ModuleType) or not callable(obj):
        return False
    return (getattr(obj, "__module__", None) or "").startswith("skiff")


def _kind(skiff, obj):
    if not inspect.isclass(obj):
        return "function"
    if issubclass(obj, skiff.nn.Layer):
        return "layer"
    return "class"
