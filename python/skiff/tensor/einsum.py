"""einsum: Einstein summation over labelled dims, composed from diagonal (a label
repeated within one operand), reduce_sum (a label no one else needs), and
transpose/reshape/matmul for each pair of operands, left to right."""
from .. import _C
from .. import _C_ops
from ..framework import arguments
from .axes import diagonal
from .linalg import matmul
from .manipulation import reshape, transpose

__all__ = ["einsum"]


def _error(equation, why):
    return _C.Error(f"einsum({equation!r}): {why}")


def _labels(equation, terms, operands):
    """Each operand's labels as a list, '...' replaced by internal labels for its
    broadcast dims (aligned from the right), and those internal labels in order."""
    widths = []
    for term, x in zip(terms, operands):
        rank = len(x.shape)
        if "..." in term:
            widths.append(rank - (len(term) - 3))
        elif len(term) != rank:
            raise _error(equation, f"term {term!r} names {len(term)} dims, its operand has "
                         f"{rank}")
    width = max(widths, default=0)
    if min(widths, default=0) < 0:
        raise _error(equation, "an operand has fewer dims than its term names")
    ellipsis = [chr(0x100 + i) for i in range(width)]
    out = []
    for term in terms:
        if "..." in term:
            head, tail = term.split("...")
            k = len(operands[len(out)].shape) - len(head) - len(tail)
            out.append(list(head) + ellipsis[width - k:] + list(tail))
        else:
            out.append(list(term))
    for labels in out:
        for c in labels:
            if ord(c) < 0x100 and not c.isalpha():
                raise _error(equation, f"{c!r} is not a letter")
    return out, ellipsis


def _output(equation, rhs, labels, ellipsis):
    if rhs is None:
        counts = {}
        for ls in labels:
            for c in ls:
                counts[c] = counts.get(c, 0) + 1
        return ellipsis + sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis)
    out = list(rhs.replace("...", "\0"))
    out = [c for part in out for c in (ellipsis if part == "\0" else [part])]
    seen = {c for ls in labels for c in ls}
    for c in out:
        if c not in seen:
            raise _error(equation, f"output label {c!r} names no input dim")
    if len(set(out)) != len(out):
        raise _error(equation, "an output label repeats")
    return out


def _sum_out(x, labels, keep):
    dims = [i for i, c in enumerate(labels) if c not in keep]
    if not dims:
        return x, labels
    x = _C_ops.reduce_sum(x, dim=dims, keep_dim=False, reduce_all=False)
    return x, [c for c in labels if c in keep]


def _take_diagonals(x, labels):
    """x with every label that repeats within it reduced to its diagonal."""
    while len(set(labels)) != len(labels):
        i = next(k for k, c in enumerate(labels) if labels.index(c) != k)
        j = labels.index(labels[i])
        x = diagonal(x, 0, j, i)
        labels = [c for k, c in enumerate(labels) if k not in (i, j)] + [labels[i]]
    return x, labels


def _permuted(x, labels, order):
    perm = [labels.index(c) for c in order]
    return x if perm == list(range(len(perm))) else transpose(x, perm)


def _broadcast(x, labels, sizes):
    shape = [sizes[c] for c in labels]
    return x if list(x.shape) == shape else _C_ops.expand(x, shape=shape)


def _product(x, lx, y, ly, later, sizes):
    """x and y (labelled lx, ly) multiplied, the labels they share and no one later needs
    summed: batch labels first, then x's own, then y's own."""
    shared = [c for c in lx if c in ly]
    batch = [c for c in shared if c in later]
    contract = [c for c in shared if c not in later]
    x_own = [c for c in lx if c not in ly]
    y_own = [c for c in ly if c not in lx]
    x, y = _broadcast(x, lx, sizes), _broadcast(y, ly, sizes)

    def size(cs):
        n = 1
        for c in cs:
            n *= sizes[c]
        return n

    lead = [size(batch)] if batch else []
    xm = reshape(_permuted(x, lx, batch + x_own + contract), lead + [size(x_own),
                                                                    size(contract)])
    ym = reshape(_permuted(y, ly, batch + contract + y_own), lead + [size(contract),
                                                                    size(y_own)])
    out = matmul(xm, ym)
    labels = batch + x_own + y_own
    return reshape(out, [sizes[c] for c in labels]), labels


def einsum(equation, *operands):
    """Sums of products of the operands' entries as the equation labels them
    ('ij,jk->ik'; without '->' the output holds the labels used once, sorted; '...'
    stands for broadcast dims)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise arguments.ArgumentTypeError(f"einsum: equation must be a str, got "
                                          f"{type(equation).__name__}")
    for i, x in enumerate(operands):
        arguments.tensor("einsum", f"operands[{i}]", x)
    eq = equation.replace(" ", "")
    if eq.count("->") > 1:
        raise _error(equation, "more than one '->'")
    lhs, rhs = eq.split("->") if "->" in eq else (eq, None)
    terms = lhs.split(",")
    if len(terms) != len(operands):
        raise _error(equation, f"{len(terms)} terms but {len(operands)} operands")
    labels, ellipsis = _labels(equation, terms, operands)
    out = _output(equation, rhs, labels, ellipsis)
    sizes = {}
    for ls, x in zip(labels, operands):
        for c, n in zip(ls, x.shape):
            if sizes.get(c, 1) not in (1, n) and n != 1:
                raise _error(equation, f"label {c!r} has sizes {sizes[c]} and {n}")
            sizes[c] = max(sizes.get(c, 1), n)
    items = [_take_diagonals(x, list(ls)) for x, ls in zip(operands, labels)]
    for i in range(len(items)):
        rest = set(out).union(*[set(ls) for _, ls in items[:i] + items[i + 1:]])
        items[i] = _sum_out(*items[i], rest)
    x, lx = items[0]
    for i in range(1, len(items)):
        later = set(out).union(*[set(ls) for _, ls in items[i + 1:]])
        y, ly = items[i]
        x, lx = _sum_out(x, lx, later | set(ly))
        y, ly = _sum_out(y, ly, later | set(lx))
        x, lx = _product(x, lx, y, ly, later, sizes)
    x, lx = _sum_out(x, lx, set(out))
    return _permuted(_broadcast(x, lx, {c: sizes[c] for c in lx}), lx, out)
