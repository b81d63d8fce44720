"""Calls of one target: a random call recipe (JSON) drawn from the target's signature, and the
Python source that makes the call.

    rng = random.Random("1/7")
    recipe = draw_call(rng, target)   # {"t": "skiff.diff", "args": [...], "kwargs": {...}}
    source(recipe)                    # "skiff.diff(skiff.to_tensor(...), n=10**20)"

A class or layer call also names the method called on the new object ("m"; "__call__" calls
the layer itself); "bw" asks the child to run backward through the result when it can."""

import inspect

import params
import targets as t
import values as v

BASE_DTYPES = ["float32"] * 6 + ["float64", "int64", "int32", "bool", "float16", "bfloat16",
                                 "uint8"]
MUTATION_RATE = 0.03  # share of calls with an argument dropped or one too many


def draw_call(rng, target):
    """A call recipe for target (a targets.Target), drawn from rng alone."""
    grad = rng.random() < 0.25
    draw = params.Draw(rng, rng.choice(v.BASE_SHAPES), rng.choice(BASE_DTYPES), grad=grad)
    recipe = {"t": target.name}
    if target.kind == "operator":
        recipe["args"] = _operator_arguments(draw, target.name)
        recipe["kwargs"] = {}
    elif target.kind == "method":
        self_value = draw.tensor() if rng.random() < 0.8 else v.tensor(rng)
        args, kwargs = _arguments(draw, target.obj, skip_first=True)
        recipe["args"], recipe["kwargs"] = [self_value] + args, kwargs
    else:
        recipe["args"], recipe["kwargs"] = _arguments(draw, target.obj)
    if target.kind in ("class", "layer"):
        method = _method(rng, target)
        if method is not None:
            recipe["m"] = method
            bound = target.obj.forward if method == "__call__" else getattr(target.obj, method)
            recipe["margs"], recipe["mkwargs"] = _arguments(draw, bound, skip_first=True)
    if grad:
        recipe["bw"] = True
    return recipe


def source(recipe, kind):
    """The Python source of a call recipe for a target of the given kind."""
    name = recipe["t"]
    args = [v.render(arg) for arg in recipe["args"]]
    if kind == "operator":
        return t.OPERATORS[name.rsplit(".", 1)[1]].format(*args)
    call_args = _join(args, recipe["kwargs"])
    if kind == "method":
        rest = _join(args[1:], recipe["kwargs"])
        return f"{args[0]}.{name.rsplit('.', 1)[1]}({rest})"
    text = f"{name}({call_args})"
    method = recipe.get("m")
    if method is None:
        return text
    method_args = _join([v.render(arg) for arg in recipe["margs"]], recipe["mkwargs"])
    if method == "__call__":
        return f"{text}({method_args})"
    return f"{text}.{method}({method_args})"


def is_statement(recipe):
    """Whether the source of recipe is a statement (exec) rather than an expression (eval)."""
    return recipe["t"] == "skiff.Tensor.__setitem__"


def _join(args, kwargs):
    parts = list(args) + [f"{key}={v.render(value)}" for key, value in kwargs.items()]
    return ", ".join(parts)


def _signature(obj):
    try:
        return inspect.signature(obj)
    except (TypeError, ValueError):
        return None


def _arguments(draw, fn, skip_first=False):
    """Positional and keyword argument recipes for fn's signature (random ones without it)."""
    rng = draw.rng
    signature = _signature(fn)
    if signature is None:
        return [draw.argument(_fake(f"x{i}")) for i in range(rng.randrange(4))], {}
    parameters = list(signature.parameters.values())[1 if skip_first else 0:]
    args, kwargs = [], {}
    positional = True
    for param in parameters:
        if param.kind == param.VAR_POSITIONAL:
            if positional:
                args.extend(draw.argument(_fake(param.name)) for _ in range(rng.randrange(3)))
            continue
        if param.kind == param.VAR_KEYWORD:
            if rng.random() < 0.05:
                kwargs["bogus_keyword"] = v.odd_value(rng)
            continue
        if param.default is not param.empty and rng.random() < 0.5:
            positional = False  # left at its default: later ones go by keyword
            continue
        value = draw.argument(param)
        if param.kind == param.POSITIONAL_ONLY:
            if not positional:
                break
            args.append(value)
        elif param.kind == param.KEYWORD_ONLY or not positional:
            kwargs[param.name] = value
        elif param.default is param.empty or rng.random() < 0.5:
            args.append(value)
        else:
            kwargs[param.name] = value
            positional = False
    if rng.random() < MUTATION_RATE:
        if args and rng.random() < 0.5:
            args.pop(rng.randrange(len(args)))
        else:
            args.append(v.odd_value(rng))
    return args, kwargs


def _operator_arguments(draw, name):
    """self, then the operand(s) the operator takes."""
    rng = draw.rng
    operator = name.rsplit(".", 1)[1]
    self_value = draw.tensor() if rng.random() < 0.8 else v.tensor(rng)
    arity = t.OPERATORS[operator].count("{") - 1
    if operator == "__getitem__":
        return [self_value, _index(draw)]
    if operator == "__setitem__":
        value = draw.tensor() if rng.random() < 0.5 else draw.argument(_fake("value"))
        return [self_value, _index(draw), value]
    return [self_value] + [draw.argument(_fake("y")) for _ in range(arity)]


def _index(draw):
    """What goes between the brackets: ints, slices, None, ..., masks, index tensors, lists."""
    rng = draw.rng
    def one():
        choice = rng.randrange(7)
        if choice == 0:
            return v.literal(rng.choice(v.SMALL_INTS + v.ODD_INTS))
        if choice == 1:
            return {"k": "slice", "v": [v.literal(rng.choice([None, 0, 1, -1, 2**63, -10**20]))
                                        for _ in range(3)]}
        if choice == 2:
            return v.literal(None)
        if choice == 3:
            return {"k": "ellipsis"}
        if choice == 4:
            return v.tensor(rng, shape=draw.base_shape, dtype="bool", fill="index")
        if choice == 5:
            return v.tensor(rng, shape=rng.choice([[2], [3], [2, 2], []]), dtype="int64",
                            fill=rng.choice(["index", "randint", "max", "min"]))
        return v.odd_value(rng)
    if rng.random() < 0.5:
        return one()
    return v.seq([one() for _ in range(rng.randrange(1, 4))], "tuple")


def _method(rng, target):
    """The method called on the constructed object: None constructs only."""
    if target.kind == "layer" and rng.random() < 0.85:
        return "__call__"
    names = [name for name in dir(target.obj)
             if not name.startswith("_") and name not in t.SKIPPED_METHODS
             and inspect.isfunction(inspect.getattr_static(target.obj, name, None))]
    if not names or rng.random() < 0.2:
        return None
    return rng.choice(sorted(names))


def _fake(name):
    return inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
