"""paddle.autograd.jacobian and hessian: lazily evaluated matrices of derivatives that
index like Tensors. A Jacobian computes the rows an index asks for (one gradient each,
through the tape) and keeps them; any other use (``J.numpy()``, ``J + 1``) takes them all.

    J = jacobian(y, x)        # y [M], x [N]: J.shape == [M, N], nothing computed yet
    J[0]                      # row 0 only: dy[0]/dx
    J[:]                      # the whole [M, N] Tensor
"""
from .. import _C
from .._C import Tensor
from ..tensor.creation import zeros
from ..tensor.manipulation import stack
from .eager_grad import HIGHER_ORDER_UNSUPPORTED, grad

__all__ = ["Jacobian", "Hessian", "jacobian", "hessian"]


def _check_operand(fn, name, t, batched):
    lo, hi = (1, 2) if batched else (0, 1)
    if not isinstance(t, Tensor):
        raise TypeError(f"{fn}: {name} must be a Tensor or a tuple of Tensors, got "
                        f"{type(t).__name__}")
    if not lo <= t.ndim <= hi:
        raise ValueError(f"{fn}: {name}.ndim should be {lo} or {hi} when is_batched={batched} "
                         f"but got {t.ndim}")


def _row_positions(index, size):
    """The rows (a list) an int or slice ``index`` picks from ``size``, and what picks the
    same rows from their stack (0 for an int: the axis goes, as in Tensor indexing)."""
    if isinstance(index, bool) or not isinstance(index, (int, slice)):
        raise TypeError(f"Jacobian: index entries must be ints or slices, got "
                        f"{type(index).__name__}")
    if isinstance(index, slice):
        return list(range(*index.indices(size))), slice(None)
    if not -size <= index < size:
        raise IndexError(f"Jacobian: index {index} is out of range for {size} rows")
    return [index % size], 0


class Jacobian:
    """d ys / d xs, shape [M, N] (the dims of 0-d tensors left out), [B, M, N] when
    batched (ys [B, M], xs [B, N]). Indexing evaluates and caches the rows it needs;
    other Tensor attributes and operators act on the whole matrix."""

    def __init__(self, ys, xs, is_batched=False):
        for name, t in (("ys", ys), ("xs", xs)):
            _check_operand("jacobian", name, t, is_batched)
        self._ys, self._xs, self._batched = ys, xs, bool(is_batched)
        self._rows = {}  # row -> its gradient, filled as indexing asks
        hi = 2 if is_batched else 1
        self._has_rows = ys.ndim == hi
        shape = [ys.shape[0]] if is_batched else []
        if ys.ndim == hi:
            shape.append(ys.shape[-1])
        if xs.ndim == hi:
            shape.append(xs.shape[-1])
        self.shape = shape

    def _gradient(self, seed):
        if self._ys.stop_gradient:  # a constant: nothing reaches xs
            return zeros(self._xs.shape, self._xs.dtype)
        g = grad(self._ys, self._xs, None if seed is None else [seed], retain_graph=True,
                 allow_unused=True)[0]
        return zeros(self._xs.shape, self._xs.dtype) if g is None else g

    def _row(self, i):
        """Row ``i`` of every batch: the gradient of ys[..., i] ([B, N] batched, [N])."""
        if i not in self._rows:
            ys = self._ys
            seed = zeros(ys.shape, ys.dtype)
            seed[..., i] = 1
            self._rows[i] = self._gradient(seed)
        return self._rows[i]

    def __getitem__(self, index):
        index = index if isinstance(index, tuple) else (index,)
        if any(i is Ellipsis or i is None for i in index):
            raise IndexError("Jacobian: Ellipsis and None indices are not supported")
        if len(index) > len(self.shape):
            raise IndexError(f"Jacobian: {len(index)} indices for a Jacobian of "
                             f"{len(self.shape)} dims (shape {self.shape})")
        if not self._has_rows:  # 0-d ys: a single gradient
            if "whole" not in self._rows:
                seed = None if not self._batched else _ones_like(self._ys)
                self._rows["whole"] = self._gradient(seed)
            whole = self._rows["whole"]
            return whole[index] if index else whole
        axis = 1 if self._batched else 0  # where the rows are
        picked = index[axis] if len(index) > axis else slice(None)
        rows, picked_again = _row_positions(picked, self.shape[axis])
        if not rows:
            shape = list(self.shape)
            shape[axis] = 0
            matrix = zeros(shape, self._xs.dtype)
        else:
            matrix = stack([self._row(i) for i in rows], axis=axis)
        rest = list(index)
        if len(rest) > axis:
            rest[axis] = picked_again
        return matrix[tuple(rest)] if rest else matrix

    def __getattr__(self, name):
        if name.startswith("_"):  # never the evaluation's own state (copy, pickle)
            raise AttributeError(name)
        return getattr(self[:], name)

    __hash__ = object.__hash__


def _delegate(op):
    def method(self, other):
        return getattr(self[:], op)(other[:] if isinstance(other, Jacobian) else other)
    method.__name__ = op
    method.__doc__ = f"The whole matrix's {op}."
    return method


for _op in ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__mod__",
            "__floordiv__", "__matmul__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__",
            "__ge__", "__radd__", "__rsub__", "__rmul__", "__rtruediv__"):
    setattr(Jacobian, _op, _delegate(_op))
Jacobian.__div__ = Jacobian.__truediv__


def _ones_like(t):
    return zeros(t.shape, t.dtype) + 1


class Hessian(Jacobian):
    """d^2 ys / (d xs1 d xs2) for a ys of one element ([B] or [B, 1] when batched): the
    Jacobian, with respect to xs2, of the gradient of ys with respect to xs1. Shape
    [N1, N2], [B, N1, N2] when batched. Raises unless ys does not depend on xs1 (zeros):
    skiff cannot differentiate a gradient."""

    def __init__(self, ys, xs1, xs2=None, is_batched=False):
        xs2 = xs1 if xs2 is None else xs2
        for name, t in (("xs", xs1), ("xs", xs2)):
            _check_operand("hessian", name, t, is_batched)
        g = grad(ys, xs1, retain_graph=True, allow_unused=True)[0]
        if g is not None:
            # ys depends on xs1: its gradient must be differentiable (taken with
            # create_graph), which skiff's tape cannot give
            raise _C.Error(HIGHER_ORDER_UNSUPPORTED.format(
                what="hessian (of an output that depends on xs)"))
        # ys does not depend on xs1: a zero gradient, whose derivative is zero too
        super().__init__(zeros(xs1.shape, xs1.dtype), xs2, is_batched)


def _pairs(ys, xs, batched, make):
    many_y, many_x = isinstance(ys, (list, tuple)), isinstance(xs, (list, tuple))
    if many_y and many_x:
        return tuple(tuple(make(y, x, batched) for x in xs) for y in ys)
    if many_y:
        return tuple(make(y, xs, batched) for y in ys)
    if many_x:
        return tuple(make(ys, x, batched) for x in xs)
    return make(ys, xs, batched)


def _batched(fn, batch_axis):
    if batch_axis not in (None, 0):
        raise ValueError(f"{fn}: batch_axis should be None or 0, but got {batch_axis}")
    return batch_axis == 0


def jacobian(ys, xs, batch_axis=None):
    """The Jacobian of ``ys`` with respect to ``xs``: a Jacobian (evaluated when indexed),
    or tuples of them when ``ys`` or ``xs`` are tuples. ``batch_axis`` is None or 0."""
    return _pairs(ys, xs, _batched("jacobian", batch_axis), Jacobian)


def hessian(ys, xs, batch_axis=None):
    """The Hessian of ``ys`` (one element; [B] when ``batch_axis`` is 0) with respect to
    ``xs``: a Hessian, or a tuple of tuples of them (H[i][j] = d^2 ys / dxs[i] dxs[j])
    when ``xs`` is a tuple. Needs the gradient of a gradient, which skiff cannot take
    (see skiff.grad): only blocks for inputs ys does not depend on (zeros) evaluate."""
    batched = _batched("hessian", batch_axis)
    if not isinstance(ys, Tensor):
        raise TypeError(f"hessian: ys must be a Tensor, got {type(ys).__name__}")
    if not batched and ys.size != 1:
        raise ValueError(f"hessian: ys must hold one element when batch_axis is None, got "
                         f"shape {list(ys.shape)}")
    if batched and (ys.ndim == 0 or ys.size != ys.shape[0]):
        raise ValueError(f"hessian: ys must have shape [B] or [B, 1] when batch_axis is 0, "
                         f"got {list(ys.shape)}")
    if isinstance(xs, (list, tuple)):
        return tuple(tuple(Hessian(ys, a, b, batched) for b in xs) for a in xs)
    return Hessian(ys, xs, None, batched)

