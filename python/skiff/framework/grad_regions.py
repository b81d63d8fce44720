"""Regions of a static program whose gradient a Python function gives (static_pylayer):
the region's ops are cut off from autodiff (its inputs are copied and its outputs copied
out, the copies inside are never differentiated) and the backward pass is appended in
stages: to the regions' outputs, then through each region's backward function from the
last region to the first, each stage carrying its inputs' gradients on upstream."""
from .. import _C
from .. import _C_ops
from .nest import flatten
from .program import program_guard

__all__ = ["GradRegion", "backward_through_regions"]

_FLOATS = ("float16", "bfloat16", "float32", "float64")


class GradRegion:
    """Inputs and outputs (names) of a region, the names cut from autodiff, and
    ``backward_fn(*output_grads)`` giving the inputs' gradients (None: no gradient)."""

    def __init__(self, inputs, outputs, cuts, backward_fn, source):
        self.inputs, self.outputs, self.cuts = list(inputs), list(outputs), set(cuts)
        self.backward_fn, self.source = backward_fn, source

    def input_grads(self, block, output_grads):
        """The ops of backward_fn on ``output_grads``: one Variable (or None) per input."""
        leaves = []
        flatten(self.backward_fn(*output_grads), leaves, none_is_leaf=True)
        if len(leaves) != len(self.inputs):
            raise ValueError(f"static_pylayer ({self.source}): backward_fn returns "
                             f"{len(leaves)} gradients for {len(self.inputs)} inputs; it must "
                             f"return one per input (None for an input without one)")
        grads = []
        for k, (name, g) in enumerate(zip(self.inputs, leaves)):
            if g is not None:
                x = block.var(name)
                if getattr(g, "block", None) is None:
                    raise TypeError(f"static_pylayer ({self.source}): backward_fn's gradient "
                                    f"{k} is {type(g).__name__}, not a Variable")
                if len(g.shape) != len(x.shape) or any(
                        a != b and a >= 0 and b >= 0 for a, b in zip(g.shape, x.shape)):
                    raise ValueError(f"static_pylayer ({self.source}): backward_fn's "
                                     f"gradient {k} has shape {list(g.shape)} but input "
                                     f"'{name}' has shape {list(x.shape)}")
            grads.append(g)
        return grads


def backward_through_regions(program, target, wanted, no_grad):
    """{name: gradient Variable} of ``target`` for the ``wanted`` names that it depends on,
    with the program's GradRegions differentiated by their backward functions."""
    regions = program._grad_regions
    no_grad = set(no_grad).union(*(r.cuts for r in regions))
    block = program.global_block()
    acc = {}

    def add(name, grad):
        acc[name] = grad if name not in acc else _C_ops.elementwise_add(acc[name], grad)

    def stage(target_name, names, seeded):
        """A backward pass from ``target_name`` (its gradient already written when
        ``seeded``); each gradient it gives is copied (a later pass reuses the name)."""
        pairs = _C.append_backward(program.desc, target_name, list(dict.fromkeys(names)),
                                   no_grad, seeded)
        with program_guard(program), program._block_guard(0):
            for name, grad in pairs:
                add(name, _C_ops.assign(block.var(grad)))

    stage(target, list(wanted) + [y for r in regions for y in r.outputs], False)
    for k in range(len(regions) - 1, -1, -1):
        region = regions[k]
        if region.backward_fn is None or not any(y in acc for y in region.outputs):
            continue
        with program_guard(program), program._block_guard(0):
            dys = [acc[y] if y in acc else _C_ops.fill_zeros_like(block.var(y))
                   for y in region.outputs]
            dxs = region.input_grads(block, dys)
        upstream = list(wanted) + [y for r in regions[:k] for y in r.outputs]
        for name, dx in zip(region.inputs, dxs):
            x = block.var(name)
            if dx is None or x._dtype_name not in _FLOATS:
                continue
            with program_guard(program), program._block_guard(0):
                if name in wanted or name in upstream:
                    add(name, dx)
                # The pass from x starts from x's gradient: dx, written where it reads it.
                seed = block.create_var(name + "@GRAD", x.shape, x.dtype)
                _C_ops.assign(dx, out=[seed])
            stage(name, upstream, True)
    return {name: acc[name] for name in wanted if name in acc}
