"""Programs and Variables as text, in the form Paddle's printing of a program takes: one
line per op, `(%3) = "matmul" (%1, %2) {attrs} : (operand types) -> result types`, each
result a fresh number, the inputs of block 0 (parameters, then data) declared first, and
an op's sub-block nested under it. Attributes left at their schema default, the source
line and the name scope are not shown (Program.to_string(with_details=True) has them)."""
from .op_schema import schema

__all__ = ["program_text", "type_text", "value_text"]

_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
          "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "ui8",
          "bool": "b", "complex64": "c64", "complex128": "c128"}
_HIDDEN = ("op_source", "sub_block", "op_namescope")
_INDENT = "    "


def type_text(desc):
    """A variable's type: tensor<2x3xf32> (tensor<f32> for a scalar), tensor_array<f32>."""
    short = _SHORT.get(desc.dtype, desc.dtype)
    if desc.kind == "tensor":
        return f"tensor<{'x'.join(map(str, desc.shape)) + 'x' if desc.shape else ''}{short}>"
    if desc.kind == "tensor_array":
        return f"tensor_array<{short}>"
    return desc.kind


def _attr_value(name, value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_attr_value(name, v) for v in value) + "]"
    if isinstance(value, str):
        return value if name == "dtype" or name.endswith("_dtype") and value else f'"{value}"'
    return str(value)


def _attrs(items):
    return "{" + ",".join(f"{k}:{_attr_value(k, v)}" for k, v in sorted(items.items())) + "}"


def _defaults(type):
    try:
        return {a["name"]: a["default"] for a in schema(type)["attrs"]}
    except Exception:  # noqa: BLE001 - an op type the registry does not know
        return {}


class _Printer:
    def __init__(self, program):
        self.program, self.desc = program, program.desc
        self.numbers, self.lines = {}, []

    def number(self, name):
        n = self.numbers[name] = len(self.numbers)
        return f"%{n}"

    def operand(self, name):
        n = self.numbers.get(name)
        return f"%{n}" if n is not None else f"%{name}"

    def var(self, block, name):
        return self.desc.var(self.desc.var_block(block, name), name)

    def declarations(self):
        """Block 0's inputs (read before any op writes them): parameters, then data."""
        written, inputs = set(), {}
        for i in range(self.desc.num_ops(0)):
            op = self.desc.op(0, i)
            inputs.update((n, None) for n in op.input_names if n and n not in written)
            written.update(op.output_names)
        params = [v.name for (b, _), v in self.program._vars.items()
                  if b == 0 and getattr(v, "_is_parameter", False)
                  and self.desc.var(0, v.name) is not None]
        persist = list(reversed(params)) + [
            n for n in inputs if n not in params and self.desc.var(0, n).persistable]
        data = [n for n in self.program._data_sources if self.desc.var(0, n) is not None]
        data += [n for n in inputs if n not in persist and n not in data]
        for name in persist:
            d, v = self.desc.var(0, name), self.program._vars.get((0, name))
            attrs = {"is_parameter": [bool(getattr(v, "_is_parameter", False))],
                     "parameter_name": name, "persistable": [True],
                     "stop_gradient": [d.stop_gradient]}
            if v is not None and getattr(v, "_is_parameter", False):
                attrs.update(trainable=[bool(v.trainable)], need_clip=[bool(v.need_clip)])
            self.lines.append(f"{_INDENT}({self.number(name)}) = \"parameter\" () "
                              f"{_attrs(attrs)} : () -> {type_text(d)}")
        for name in data:
            d = self.desc.var(0, name)
            attrs = {"dtype": d.dtype, "name": name, "place": _UNDEFINED_PLACE,
                     "shape": list(d.shape), "stop_gradient": [d.stop_gradient]}
            self.lines.append(f"{_INDENT}({self.number(name)}) = \"data\" () "
                              f"{_attrs(attrs)} : () -> {type_text(d)}")

    def block(self, idx, depth):
        indent = _INDENT * depth
        for i in range(self.desc.num_ops(idx)):
            op = self.desc.op(idx, i)
            defaults = _defaults(op.type)
            attrs = {n: op.attr(n) for n in op.attr_names
                     if n not in _HIDDEN and (n not in defaults or op.attr(n) != defaults[n])}
            outs = [n for n in op.output_names if n]
            attrs["stop_gradient"] = [self.var(idx, n).stop_gradient for n in outs]
            operands = [n for n in op.input_names if n]
            in_types = ", ".join(type_text(self.var(idx, n)) for n in operands)
            out_types = ", ".join(type_text(self.var(idx, n)) for n in outs)
            args = ", ".join(self.operand(n) for n in operands)
            results = ", ".join(self.number(n) for n in outs)
            line = (f"{indent}({results}) = \"{op.type}\" ({args}) {_attrs(attrs)} : "
                    f"({in_types}) -> {out_types}")
            subs = list(op.sub_blocks)
            if not subs:
                self.lines.append(line)
                continue
            self.lines.append(line + " {")
            for k, sub in enumerate(subs):
                if k:
                    self.lines.append(f"{indent}}} {{")
                self.block(sub, depth + 1)
            self.lines.append(f"{indent}}}")


class _Place:
    def __repr__(self):
        return "Place(undefined:0)"


_UNDEFINED_PLACE = _Place()  # data declares no place: Paddle shows its unset place so


def program_text(program):
    """The whole program as text (block 0 with its ops' sub-blocks nested)."""
    printer = _Printer(program)
    printer.declarations()
    printer.block(0, 1)
    return "{\n" + "".join(line + "\n" for line in printer.lines) + "}\n"


def value_text(variable):
    """Value(define_op_name=..., index=..., dtype=tensor<...>, stop_gradient=...) as
    Paddle shows a program's value, with the variable's name last."""
    program, idx, name = variable.block.program, variable.block.idx, variable.name
    desc = program.desc
    define, index = None, 0
    for i in range(desc.num_ops(idx) - 1, -1, -1):
        outs = [n for n in desc.op(idx, i).output_names if n]
        if name in outs:
            define, index = desc.op(idx, i).type, outs.index(name)
            break
    d = variable.desc
    if define is None:
        define = "parameter" if d.persistable else "data"
    return (f"Value(define_op_name={define}, index={index}, dtype={type_text(d)}, "
            f"stop_gradient={d.stop_gradient}, name={name})")
