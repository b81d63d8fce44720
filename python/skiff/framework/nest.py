"""Nested structures of values — lists, tuples (named ones too) and dicts of leaves — taken
apart into their leaves and rebuilt (as paddle.utils.flatten / pack_sequence_as). cond and
while_loop carry their values this way, to_static its branches' and loops' values, the
high-level Model its batches.

    leaves = []
    spec = flatten({"h": h, "cs": [c0, c1]}, leaves)    # leaves: [c0, c1, h]
    pack(spec, [x + 1 for x in leaves])                  # {"cs": [c0 + 1, c1 + 1], "h": h + 1}

A dict's entries go in the order of its sorted keys (in their own order when the keys do
not sort), so two dicts with the same keys have the same structure whichever was filled
first."""

__all__ = ["flatten", "pack", "leaves_of"]

# The spec of a None that is no leaf (flatten(..., none_is_leaf=False)).
NONE = ("none",)


def _keys(d):
    try:
        return sorted(d)
    except TypeError:  # keys of kinds that do not compare
        return list(d)


def flatten(value, leaves, none_is_leaf=True, dicts=True):
    """Appends the leaves of ``value`` to ``leaves``; returns its structure (the spec
    ``pack`` rebuilds it from: None for a leaf). ``none_is_leaf`` False: a None is part of
    the structure, not a leaf. ``dicts`` False: a dict is a leaf."""
    if isinstance(value, (list, tuple)):
        kind = list if isinstance(value, list) else type(value)
        return (kind, [flatten(v, leaves, none_is_leaf, dicts) for v in value])
    if dicts and isinstance(value, dict):
        keys = _keys(value)
        return (dict, keys, [flatten(value[k], leaves, none_is_leaf, dicts) for k in keys])
    if value is None and not none_is_leaf:
        return NONE
    leaves.append(value)
    return None


def pack(spec, leaves):
    """The structure ``spec`` (from flatten) rebuilt around ``leaves``, in order."""
    it = iter(leaves)
    return _build(spec, it)


def leaves_of(value, dicts=True):
    """The leaves of ``value``, in flatten's order."""
    leaves = []
    flatten(value, leaves, dicts=dicts)
    return leaves


def _build(spec, it):
    if spec is None:
        return next(it)
    if spec is NONE or spec == NONE:
        return None
    if spec[0] is dict:
        return {k: _build(s, it) for k, s in zip(spec[1], spec[2])}
    items = [_build(s, it) for s in spec[1]]
    kind = spec[0]
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    return kind(*items)  # a namedtuple
