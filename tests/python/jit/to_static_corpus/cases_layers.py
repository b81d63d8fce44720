"""Layers and shapes: methods calling each other, hasattr on a Layer, a Layer holding
sublayers of its own kind, LayerList loops, `self.training`, and shapes of an input
whose batch is unknown (InputSpec [None, ...]): P.shape(x)[0] and x.shape[0] in range,
reshape and creation. `P` is the framework (skiff or paddle), bound by corpus.load."""
import numpy as np

from .corpus import Case

B = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], np.float32)
BATCH4 = np.linspace(-1.0, 1.0, 24).astype(np.float32).reshape(4, 2, 3)
ROWS4 = np.linspace(-2.0, 2.0, 12).astype(np.float32).reshape(4, 3)
N3 = np.array(3, np.int64)


class MethodsCallingEachOther(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = P.nn.Linear(3, 3)

    def step(self, h, x):
        return P.tanh(self.fc(h) + x)

    def encode(self, x, n):
        h = P.zeros_like(x)
        for i in range(n):
            h = self.step(h, x)
        return h

    def forward(self, x, n):
        return self.encode(x, n) * 2.0


class HasattrOnLayer(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = P.nn.Linear(3, 3)

    def forward(self, x):
        if hasattr(self, "fc"):
            x = self.fc(x)
        if hasattr(self, "missing"):
            x = x * 0.0
        return x


class Tree(P.nn.Layer):
    """A Layer whose children are Trees: the recursion of Layers."""

    def __init__(self, depth):
        super().__init__()
        self.fc = P.nn.Linear(3, 3)
        self.kids = P.nn.LayerList([Tree(depth - 1) for _ in range(2)] if depth else [])

    def forward(self, x):
        out = P.tanh(self.fc(x))
        for kid in self.kids:
            out = out + kid(out)
        return out


class LayerListLoop(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.layers = P.nn.LayerList([P.nn.Linear(3, 3) for _ in range(3)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = P.tanh(layer(x)) + i
        return x


class TrainingFlag(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = P.nn.Linear(3, 2)

    def forward(self, x):
        y = self.fc(x)
        if self.training:
            y = y * 2.0
        return y


class TensorLoopWithParameters(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = P.nn.Linear(3, 3)

    def forward(self, x, n=None):
        i = P.to_tensor(0)
        while i < n:
            x = P.tanh(self.fc(x))
            if P.mean(x) > 0.9:
                break
            i += 1
        return x


class BranchOnLayerOutput(P.nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc = P.nn.Linear(3, 3)

    def forward(self, x):
        y = self.fc(x)
        if P.mean(y) > 0:
            return y, self.fc(y)
        return -y, y


def shape_of_unknown_batch_in_range(x):
    s = P.zeros([3])
    for i in range(P.shape(x)[0]):
        s = s + x[i]
    return s


def x_shape_of_unknown_batch_in_range(x):
    s = P.zeros([3])
    for i in range(x.shape[0]):
        s = s + x[i] * 2.0
    return s


def reshape_with_unknown_batch(x):
    flat = P.reshape(x, [x.shape[0], -1])
    return P.sum(flat, axis=1)


def mean_over_unknown_batch(x):
    return P.sum(x, axis=0) / x.shape[0]


def zeros_of_unknown_batch(x):
    z = P.zeros([x.shape[0], 3])
    return z + x * 2.0


def len_of_unknown_batch(x):
    return x * len(x)


CASES = [
    Case(MethodsCallingEachOther, (B, N3), grad=0),
    Case(HasattrOnLayer, (B,), grad=0),
    Case(Tree, (B,), grad=0, init=(2,)),
    Case(LayerListLoop, (B,), grad=0),
    Case(TrainingFlag, (B,), grad=0),
    Case(TensorLoopWithParameters, (B, N3), grad=0),
    Case(BranchOnLayerOutput, (B,), grad=0),
    Case(shape_of_unknown_batch_in_range, (ROWS4,), grad=0, spec=[[None, 3]]),
    Case(shape_of_unknown_batch_in_range, (ROWS4,), grad=0,
         label="shape_of_known_batch_in_range"),
    Case(x_shape_of_unknown_batch_in_range, (ROWS4,), grad=0, spec=[[None, 3]]),
    Case(reshape_with_unknown_batch, (BATCH4,), grad=0, spec=[[None, 2, 3]]),
    Case(mean_over_unknown_batch, (ROWS4,), grad=0, spec=[[None, 3]]),
    Case(zeros_of_unknown_batch, (ROWS4,), grad=0, spec=[[None, 3]]),
    Case(len_of_unknown_batch, (ROWS4,), grad=0, spec=[[None, 3]]),
]
