"""Which rank of a sharding group owns which parameter, and the optimizer's view of what
this rank owns.

    owners = partition_parameters(params, group.nranks)   # owners[i]: the rank of params[i]
    restrict_optimizer(opt, {id(p): p for p, o in zip(params, owners) if o == group.rank})
"""
from ..collective import ReduceOp, all_reduce, broadcast

__all__ = ["partition_parameters", "restrict_optimizer", "trainable_parameters",
           "sync_parameters", "average_gradient"]


def trainable_parameters(layer):
    """The parameters of ``layer`` that train (each once, in the layer's order)."""
    seen, params = set(), []
    for p in layer.parameters():
        if id(p) not in seen and not p.stop_gradient and getattr(p, "trainable", True):
            seen.add(id(p))
            params.append(p)
    return params


def partition_parameters(params, nranks):
    """The owning rank of each parameter: the largest first, each to the rank holding the
    fewest elements so far (ties to the lowest rank), so every rank owns about the same
    number of elements. Every rank computes the same answer."""
    owners = [0] * len(params)
    load = [0] * nranks
    for i in sorted(range(len(params)), key=lambda i: (-int(params[i].size), i)):
        rank = min(range(nranks), key=lambda r: (load[r], r))
        owners[i] = rank
        load[rank] += int(params[i].size)
    return owners


def restrict_optimizer(optimizer, kept, what):
    """Makes ``optimizer`` update only the parameters in ``kept`` ({id(parameter): the
    tensor to update in its place}); its groups keep their options. Accumulators already
    made for other parameters are an error (``what`` names the caller)."""
    if optimizer._accumulators:
        raise ValueError(f"{what}: the optimizer has stepped already; wrap it before the "
                         f"first step")
    for group in optimizer._param_groups:
        group["params"] = [kept[id(p)] for p in group["params"] if id(p) in kept]
    optimizer._parameter_list = [p for g in optimizer._param_groups for p in g["params"]]


def sync_parameters(params, groups):
    """Every rank of each group takes the parameters of the group's first rank."""
    for group in groups:
        if group is not None and group.nranks > 1:
            for p in params:
                broadcast(p, group.ranks[0], group)


def average_gradient(grad, groups):
    """``grad`` averaged in place over the ranks of each group (None: skipped)."""
    for group in groups:
        if group is not None and group.nranks > 1:
            all_reduce(grad, ReduceOp.AVG, group)
