"""The code examples of the installed PaddlePaddle's public API, taken from its docstrings.

`extract()` walks `__all__` of the public modules in MODULES, reads the docstring of every
object they export (and of the public methods of exported classes), and cuts each
`.. code-block:: python` block of `>>>` / `...` lines into one example. An example that the
same code already gave under another name is kept once, under the first module that
exports it. `exclusion(code)` says why an example cannot run here (None when it can).
"""

import doctest
import hashlib
import importlib
import inspect
import re

# The public modules, in the order that assigns an example to a module: the submodules
# first, then the top level, then the methods of paddle.Tensor (most repeat a function's),
# then paddle.static (whose Variable has the methods of Tensor).
MODULES = [
    "paddle.nn", "paddle.nn.functional", "paddle.nn.initializer", "paddle.nn.utils",
    "paddle.linalg", "paddle.fft", "paddle.signal", "paddle.sparse", "paddle.sparse.nn",
    "paddle.distribution", "paddle.optimizer", "paddle.optimizer.lr", "paddle.regularizer",
    "paddle.io", "paddle.metric", "paddle.autograd", "paddle.amp", "paddle.jit",
    "paddle.vision", "paddle.vision.transforms", "paddle.vision.ops", "paddle.vision.models",
    "paddle.text", "paddle.callbacks",
    "paddle.hub", "paddle.utils", "paddle.device", "paddle.geometric", "paddle.audio",
    "paddle.quantization", "paddle.onnx", "paddle.distributed", "paddle", "paddle.Tensor",
    "paddle.static", "paddle.static.nn",
]

# Each kind of example left out: the Paddle directive or the code pattern that detects it.
_REQUIRES = re.compile(r"doctest:\s*\+REQUIRES\(([^)]*)\)")
_SKIP = re.compile(r"doctest:\s*\+SKIP\(?([^)\n]*)\)?")
EXCLUSIONS = [
    ("accelerator", re.compile(
        r"\b(?:gpu|cuda|xpu|npu|ipu|mlu|custom_device|CUDAPlace|CUDAPinnedPlace|"
        r"is_compiled_with_\w+|fp8|float8)\b", re.I)),
    ("processes", re.compile(
        r"paddle\.distributed|\bfleet\b|\bspawn\b|init_parallel_env|DataParallel|"
        r"multiprocessing|num_workers\s*=\s*[1-9]|subprocess|\blaunch\b|"
        r"paddle\.inference|Predictor|rpc\.", re.I)),
    ("download", re.compile(
        r"pretrained\s*=\s*True|paddle\.(?:vision|text|audio)\.datasets|"
        r"\b(?:MNIST|FashionMNIST|Cifar10|Cifar100|Flowers|VOC2012|DatasetFolder|ImageFolder|"
        r"Imdb|Imikolov|Movielens|UCIHousing|WMT14|WMT16|Conll05st|ESC50|TESS)\b|"
        r"download|https?://|urllib|hub\.load|hub\.list|hub\.help|wget", re.I)),
    ("files", re.compile(
        r"""['"](?:/|~|\.\./)|expanduser|\.(?:jpg|jpeg|png|wav|pdmodel|tar)['"]|"""
        r"""load_inference_model|ProgramTranslator|paddle\.utils\.cpp_extension|"""
        r"""paddle\.sysconfig|set_flags\(\{['"]FLAGS_(?:call_stack|cudnn|use)""", re.I)),
]


def exclusion(code):
    """Why an example cannot run on one CPU in a temp dir, or None: the kind from EXCLUSIONS,
    found from Paddle's own REQUIRES / SKIP directives first, then from the code."""
    for found in _REQUIRES.findall(code):
        return "processes" if "DISTRIBUTED" in found else "accelerator"
    for reason in _SKIP.findall(code):
        if re.search(r"file|download|distributed|card|external|custom variables", reason, re.I):
            return "processes" if re.search(r"distributed|card", reason, re.I) else "files"
    for kind, pattern in EXCLUSIONS:
        if pattern.search(code):
            return kind
    return None


_BLOCK = re.compile(r"\.\. code-block::\s*(?:python|pycon)[^\n]*\n")


def _code_blocks(doc):
    """The `>>>` code of each python code-block in a docstring."""
    doc = inspect.cleandoc(doc)
    parser = doctest.DocTestParser()
    starts = [m.end() for m in _BLOCK.finditer(doc)]
    if not starts:  # `>>>` lines outside a code-block: the whole docstring is one block
        code = "".join(part.source for part in parser.get_examples(doc))
        if code.strip():
            yield code
        return
    for i, start in enumerate(starts):
        end = starts[i + 1] if i + 1 < len(starts) else len(doc)
        text = doc[start:end]
        # The block ends at the first line indented less than its first code line.
        lines = text.split("\n")
        body, indent = [], None
        for line in lines:
            if not line.strip():
                body.append("")
                continue
            width = len(line) - len(line.lstrip())
            if indent is None:
                indent = width
            elif width < indent:
                break
            body.append(line[indent:])
        try:
            parts = parser.get_examples("\n".join(body))
        except ValueError:
            continue
        code = "".join(part.source for part in parts)
        if code.strip():
            yield code


def _documented(module):
    """(name, object) for what a module exports and the public methods of its classes."""
    names = getattr(module, "__all__", [])
    if inspect.isclass(module):  # paddle.Tensor: its methods
        names, module = ["Tensor"], importlib.import_module("paddle")
    elif module.__name__ == "paddle":
        names = [name for name in names if name != "Tensor"]
    for name in names:
        obj = getattr(module, name, None)
        if obj is None or inspect.ismodule(obj):
            continue
        yield name, obj
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") and attr != "__init__":
                    continue
                if isinstance(member, (staticmethod, classmethod)):
                    member = member.__func__
                if isinstance(member, property):
                    member = member.fget
                if callable(member) or inspect.isfunction(member):
                    yield f"{name}.{attr}", member


def extract(modules=MODULES):
    """[{id, module, code, excluded}]: every example once, ids `module.name#k` (k-th block)."""
    examples, seen = [], set()
    for module_name in modules:
        try:
            if module_name == "paddle.Tensor":
                module = importlib.import_module("paddle").Tensor
            else:
                module = importlib.import_module(module_name)
        except Exception:  # a module this wheel lacks
            continue
        for name, obj in _documented(module):
            doc = getattr(obj, "__doc__", None)
            if not isinstance(doc, str) or ">>>" not in doc:
                continue
            for k, code in enumerate(_code_blocks(doc)):
                digest = hashlib.sha1(code.encode()).hexdigest()
                if digest in seen:
                    continue
                seen.add(digest)
                qualified = name[len("Tensor."):] if module_name == "paddle.Tensor" else name
                examples.append({"id": f"{module_name}.{qualified}#{k}", "module": module_name,
                                 "code": code, "excluded": exclusion(code)})
    return examples
