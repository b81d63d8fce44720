"""skiff.Size: Paddle 3.x's shape type, a list of ints whose slices, sums and products
are Sizes again and which knows its number of elements. (Tensor.shape stays a plain
list in skiff; Size([2, 3]) == [2, 3].)"""


class Size(list):
    """A shape: a list of ints."""

    def __init__(self, dims=()):
        dims = list(dims)
        for i, d in enumerate(dims):
            if isinstance(d, bool) or not hasattr(d, "__index__"):
                raise TypeError(f"skiff.Size() takes an iterable of 'int' (item {i} is "
                                f"'{type(d).__name__}')")
        super().__init__(int(d) for d in dims)

    def numel(self):
        """The product of the dims (1 for an empty Size)."""
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, index):
        out = list.__getitem__(self, index)
        return Size(out) if isinstance(index, slice) else out

    def __add__(self, other):
        return Size(list(self) + list(other))

    def __radd__(self, other):
        return Size(list(other) + list(self))

    def __mul__(self, n):
        return Size(list(self) * n)

    __rmul__ = __mul__
    __hash__ = None

    def __repr__(self):
        return f"skiff.Size({list(self)})"
