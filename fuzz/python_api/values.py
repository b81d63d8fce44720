"""Argument values for the API fuzzer: random recipes (plain JSON) and the Python source each
recipe stands for. The child process evaluates that source, so a recorded call is replayed
exactly by running its text:

    rng = random.Random("1/7")
    recipe = odd_value(rng)               # e.g. {"k": "int", "v": 2**63}
    render(recipe)                        # "2**63"

A tensor recipe names shape, dtype, fill and a numpy seed; it renders as
skiff.to_tensor(<numpy expression>). Sizes are kept small: the largest shape here holds
64**3 elements; huge numbers reach skiff only as arguments it must refuse."""

import math

FLOAT_DTYPES = ["float32", "float64"]
LOW_FLOAT_DTYPES = ["float16", "bfloat16"]  # numpy has no bfloat16: cast after to_tensor
INT_DTYPES = ["int32", "int64", "uint8", "int8", "int16"]
DTYPES = FLOAT_DTYPES + LOW_FLOAT_DTYPES + INT_DTYPES + ["bool"]

# Shapes a call's tensors share, so ops get past their first shape check.
BASE_SHAPES = [[], [4], [2, 3], [3, 3], [2, 3, 4], [2, 3, 4, 4], [1, 2, 4, 4], [2, 3, 4, 4, 4]]
# Odd shapes: empty, rank 6, long thin, and 0-size with dims past 2**31 (no memory).
ODD_SHAPES = [[0], [0, 3], [3, 0], [2, 0, 3], [1], [1, 1], [1, 1, 1, 1, 1, 1], [2, 1, 3, 1, 2, 2],
              [1, 4096], [64, 64, 64], [5], [7, 1], [0, 2**31], [2**31, 0], [0, 2**40]]

SMALL_INTS = [0, 1, 2, 3, -1, 4]
ODD_INTS = [-5, -2, 7, 10**20, -10**20, 2**31, 2**31 - 1, -2**31, 2**32, 2**62, 2**63 - 1,
            2**63, -2**63, 2**64]
SMALL_FLOATS = [0.5, 1.0, 2.0, 1e-5, 0.0, 0.1]
ODD_FLOATS = ["nan", "inf", "-inf", "-0.0", 1e308, -1.0, 5e-324, 2.0**63, -3.5]
STRINGS = ["", "bogus", "NCHW", "NHWC", "NCL", "mean", "sum", "none", "float32", "int64",
           "L", "fro", "nuc", "constant", "reflect", "\x00", "x" * 300]

# Values that are no tensor, number, string or list: callables, layers, objects.
EXPRESSIONS = [
    "lambda *a, **k: a[0] if a else None",
    "skiff.nn.Linear(3, 3)",
    "skiff.nn.Linear(3, 3).parameters()",
    "object()",
    "{}",
    "{'a': 1}",
    "b'ab'",
    "1j",
    "np.float64(1.5)",
    "np.int64(3)",
    "range(3)",
    "skiff.CPUPlace()",
    "skiff.ParamAttr(name='w')",
    "set()",
]

# numpy source of each fill: {S} shape tuple, {D} numpy dtype, {R} seeded generator.
FILLS = {
    "randn": "{R}.standard_normal({S}).astype('{D}')",
    "positive": "{R}.uniform(0.5, 2.0, {S}).astype('{D}')",
    "index": "{R}.integers(0, 3, {S}).astype('{D}')",
    "randint": "{R}.integers(-5, 6, {S}).astype('{D}')",
    "zeros": "np.zeros({S}, '{D}')",
    "ones": "np.ones({S}, '{D}')",
    "nan": "np.full({S}, np.nan, '{D}')",
    "inf": "np.full({S}, np.inf, '{D}')",
    "-inf": "np.full({S}, -np.inf, '{D}')",
    "-0.0": "np.full({S}, -0.0, '{D}')",
    "special": "np.resize(np.array([np.nan, np.inf, -np.inf, -0.0, 3e38, 1e-45]), {S})"
               ".astype('{D}')",
    "min": "np.full({S}, np.iinfo('{D}').min, '{D}')",
    "max": "np.full({S}, np.iinfo('{D}').max, '{D}')",
}
FLOAT_ONLY_FILLS = ["nan", "inf", "-inf", "-0.0", "special"]
INT_ONLY_FILLS = ["min", "max"]


def tensor(rng, shape=None, dtype=None, fill=None, grad=False, as_array=False):
    """A tensor recipe; unset fields are drawn from rng (fill compatible with dtype)."""
    shape = list(shape) if shape is not None else rng.choice(BASE_SHAPES + ODD_SHAPES)
    dtype = dtype or rng.choice(DTYPES)
    if fill is None:
        fill = rng.choice(list(FILLS))
    if fill in FLOAT_ONLY_FILLS and not _is_float(dtype):
        fill = "randint"
    if fill in INT_ONLY_FILLS and (_is_float(dtype) or dtype == "bool"):
        fill = "randn"
    recipe = {"k": "tensor", "shape": shape, "dtype": dtype, "fill": fill,
              "seed": rng.randrange(1000)}
    if grad and _is_float(dtype):
        recipe["grad"] = True
    if as_array:
        recipe["k"] = "ndarray"
    return recipe


def literal(value):
    """A recipe for an int, bool, str or None."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return {"k": "lit", "v": value}
    if isinstance(value, int):
        return {"k": "int", "v": value}
    return {"k": "float", "v": value}


def seq(items, kind="list"):
    """A list or tuple recipe of item recipes."""
    return {"k": kind, "v": list(items)}


def dtype_value(rng):
    """A dtype in one of the spellings users write: skiff.float32, 'float32', np.float32."""
    return {"k": "dtype", "v": rng.choice(DTYPES + ["complex64", "float8"]),
            "form": rng.choice(["skiff", "str", "str", "numpy"])}


def odd_value(rng, depth=0):
    """Any value at all, biased to those that break code: extremes, empties, wrong kinds."""
    kind = rng.choice(["int", "int", "float", "str", "none", "bool", "list", "list", "tensor",
                       "tensor", "tensor", "dtype", "expr", "ndarray", "tensors"])
    if kind == "int":
        return literal(rng.choice(SMALL_INTS + ODD_INTS))
    if kind == "float":
        return literal(rng.choice(SMALL_FLOATS + ODD_FLOATS))
    if kind == "str":
        return literal(rng.choice(STRINGS))
    if kind == "none":
        return literal(None)
    if kind == "bool":
        return literal(rng.random() < 0.5)
    if kind == "dtype":
        return dtype_value(rng)
    if kind == "expr":
        return {"k": "expr", "v": rng.choice(EXPRESSIONS)}
    if kind == "tensor":
        return tensor(rng)
    if kind == "ndarray":
        return tensor(rng, dtype=rng.choice(["float32", "float64", "int64", "bool"]),
                      as_array=True)
    if kind == "tensors":
        shape = rng.choice(BASE_SHAPES)
        return seq([tensor(rng, shape=shape) for _ in range(rng.randrange(4))])
    return odd_list(rng, depth)


def odd_list(rng, depth=0):
    """A list or tuple: empty, nested, huge numbers, negatives, mixed kinds."""
    form = rng.choice(["list", "tuple"])
    choice = rng.randrange(8)
    if choice == 0 or depth > 1:
        return seq([], form)
    if choice == 1:
        return seq([literal(rng.choice(ODD_INTS)) for _ in range(rng.randrange(1, 4))], form)
    if choice == 2:
        return seq([odd_value(rng, depth + 1) for _ in range(rng.randrange(1, 4))], form)
    if choice == 3:
        return seq([odd_list(rng, depth + 1)], form)
    if choice == 4:
        return seq([literal(rng.choice(SMALL_FLOATS + ODD_FLOATS))
                    for _ in range(rng.randrange(1, 3))], form)
    return seq([literal(rng.choice(SMALL_INTS + [-2, 5]))
                for _ in range(rng.randrange(1, 5))], form)


def render(recipe):
    """The Python source for a recipe; it evaluates with skiff and numpy as np in scope."""
    kind = recipe["k"]
    if kind == "lit":
        return repr(recipe["v"])
    if kind == "int":
        return render_int(recipe["v"])
    if kind == "float":
        return render_float(recipe["v"])
    if kind in ("list", "tuple"):
        items = [render(item) for item in recipe["v"]]
        if kind == "list":
            return "[" + ", ".join(items) + "]"
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    if kind == "dtype":
        form, name = recipe["form"], recipe["v"]
        if form == "skiff":
            return f"skiff.{name}" if name in DTYPES else repr(name)
        if form == "numpy" and name not in LOW_FLOAT_DTYPES + ["float8"]:
            return "np.bool_" if name == "bool" else f"np.{name}"
        return repr(name)
    if kind == "expr":
        return recipe["v"]
    if kind == "slice":
        return "slice(" + ", ".join(render(part) for part in recipe["v"]) + ")"
    if kind == "ellipsis":
        return "..."
    if kind in ("tensor", "ndarray"):
        return render_tensor(recipe)
    raise ValueError(f"unknown value recipe kind {kind!r}")


def render_tensor(recipe):
    """skiff.to_tensor(<numpy>) for a tensor recipe; the bare numpy source for an ndarray."""
    dtype = recipe["dtype"]
    numpy_dtype = "float32" if dtype in LOW_FLOAT_DTYPES else dtype
    shape = tuple(recipe["shape"])
    fill = FILLS[recipe["fill"]]
    source = fill.format(S=repr(shape), D=numpy_dtype,
                         R=f"np.random.default_rng({recipe['seed']})")
    if recipe["k"] == "ndarray":
        return source
    source = f"skiff.to_tensor({source}"
    source += ", stop_gradient=False)" if recipe.get("grad") else ")"
    if dtype in LOW_FLOAT_DTYPES:
        source += f".astype('{dtype}')"
    return source


def render_int(value):
    """An int as its author would write it: 2**63, -2**31 + 1, 10**20; small ones plainly."""
    if abs(value) < 10000:
        return repr(value)
    sign = "-" if value < 0 else ""
    size = abs(value)
    for base in (2, 10):
        for offset in (0, -1, 1):
            exponent = round(math.log(size - offset, base)) if size - offset > 0 else 0
            if base ** exponent + offset == size:
                text = f"{base}**{exponent}"
                if offset:
                    text = f"({text} {'+' if offset > 0 else '-'} 1)" if sign else \
                        f"{text} {'+' if offset > 0 else '-'} 1"
                return sign + text
    return repr(value)


def render_float(value):
    """A float, with nan, inf and -0.0 spelled so the source evaluates to them."""
    if isinstance(value, str):
        return f"float('{value}')"
    return repr(float(value))


def _is_float(dtype):
    return dtype in FLOAT_DTYPES + LOW_FLOAT_DTYPES
