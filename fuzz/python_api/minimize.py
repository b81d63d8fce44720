"""Shortening a call that crashes or hangs: drops keyword and trailing arguments, and turns
tensors into float32 zeros without autograd, one change at a time, keeping each change after
which the call still crashes (or hangs) in a fresh process.

    recipe, source = minimize(recipe, "function", "crash", wrap="{}", timeout=10, budget=16)"""

import copy

import calls
import corpus

PLAIN_FILLS = ("zeros", "ones")


def minimize(recipe, kind, how, wrap, timeout, budget):
    """The smallest recipe found within budget runs that still ends as how ("crash" or
    "hang"), and its program: wrap with the call's source in place of {} (a backward pass
    wraps the call as "y = {}; y.sum().backward()")."""
    best = recipe
    runs = 0
    changed = True
    while changed and runs < budget:
        changed = False
        for candidate in _simpler(best):
            if runs >= budget:
                break
            runs += 1
            program = wrap.format(calls.source(candidate, kind))
            if corpus.run_source(program, timeout)["outcome"] == how:
                best = candidate
                changed = True
                break
    return best, wrap.format(calls.source(best, kind))


def _simpler(recipe):
    """Recipes one change simpler than recipe, the biggest changes first."""
    for group in ("kwargs", "mkwargs"):
        for key in list(recipe.get(group, {})):
            candidate = copy.deepcopy(recipe)
            del candidate[group][key]
            yield candidate
    for group, keep in (("args", 1), ("margs", 0)):
        if len(recipe.get(group, [])) > keep:
            candidate = copy.deepcopy(recipe)
            candidate[group].pop()
            yield candidate
    for path in _tensor_paths(recipe):
        value = _get(recipe, path)
        plain = dict(value, fill="zeros" if value["fill"] not in PLAIN_FILLS else value["fill"],
                     dtype="float32")
        plain.pop("grad", None)
        if plain != value:
            candidate = copy.deepcopy(recipe)
            _set(candidate, path, plain)
            yield candidate


def _tensor_paths(node, path=()):
    if isinstance(node, dict):
        if node.get("k") in ("tensor", "ndarray"):
            yield path
            return
        for key, child in node.items():
            yield from _tensor_paths(child, path + (key,))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _tensor_paths(child, path + (index,))


def _get(node, path):
    for key in path:
        node = node[key]
    return node


def _set(node, path, value):
    _get(node, path[:-1])[path[-1]] = value
