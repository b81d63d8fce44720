"""skiff.LazyGuard: Paddle's context in which layers are built without their parameters'
initial values. skiff initializes each parameter when it is created, so within the guard
layers are built as outside it."""


class LazyGuard:
    """``with skiff.LazyGuard(): model = Net()`` (parameters are initialized at once)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
