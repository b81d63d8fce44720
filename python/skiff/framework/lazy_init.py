"""skiff.LazyGuard: Paddle's context in which layers are built without their parameters'
initial values. A parameter made within it holds zeros that take no memory (a view of the
shared zero pages) and remembers its initializer; ``param.initialize()`` runs it. Reading
a parameter before then reads zeros."""


class LazyGuard:
    """``with skiff.LazyGuard(): model = Net()``, then ``p.initialize()`` for each
    parameter (Paddle's lazy initialization)."""

    active = 0  # how many guards are open (create_parameter reads it)

    def __enter__(self):
        LazyGuard.active += 1
        return self

    def __exit__(self, *exc):
        LazyGuard.active -= 1
        return False
