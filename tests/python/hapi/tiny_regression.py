"""A softmax regression written with skiff ops and leaf tensors, a plain SGD over the
sgd op, and the same training in numpy: the reference the Model tests compare with."""
import numpy as np

import skiff
from skiff.autograd import no_grad
from skiff.framework.core import apply
from skiff.hapi import Model
from skiff.metric import Accuracy

FEATURES, CLASSES, SAMPLES = 5, 3, 64


class SoftmaxRegression:
    """logits = x @ w + b, with just what Model uses of a Layer."""

    def __init__(self, w, b):
        self.w = skiff.to_tensor(w.copy(), stop_gradient=False)
        self.b = skiff.to_tensor(b.copy(), stop_gradient=False)
        self.training = True

    def forward(self, x):
        return skiff.matmul(x, self.w) + self.b

    def __call__(self, x):
        return self.forward(x)

    def parameters(self):
        return [self.w, self.b]

    def train(self):
        self.training = True

    def eval(self):
        self.training = False


class PlainSGD:
    """param -= lr * grad through the registered sgd op."""

    def __init__(self, lr, parameters):
        self._learning_rate = lr
        self._lr = skiff.to_tensor(np.array([lr], np.float32))
        self._params = parameters
        self.steps = 0

    def step(self):
        self.steps += 1
        with no_grad():
            for p in self._params:
                apply("sgd", p, p.grad, self._lr, out=[p])

    def clear_grad(self):
        for p in self._params:
            p.clear_grad()


def cross_entropy(logits, label):
    _, loss = apply("softmax_with_cross_entropy", logits, label)
    return skiff.mean(loss)


def data(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((SAMPLES, FEATURES)).astype(np.float32)
    y = (x[:, :CLASSES] + 0.3 * rng.standard_normal((SAMPLES, CLASSES))).argmax(1)
    return x, y.astype(np.int64).reshape(-1, 1)


def initial_weights(seed=1):
    rng = np.random.default_rng(seed)
    return (0.1 * rng.standard_normal((FEATURES, CLASSES)).astype(np.float32),
            np.zeros(CLASSES, np.float32))


def np_loss_and_grads(w, b, x, y):
    logits = x.astype(np.float64) @ w + b
    logits -= logits.max(1, keepdims=True)
    p = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    n = len(x)
    loss = -np.log(p[np.arange(n), y[:, 0]]).mean()
    g = p.copy()
    g[np.arange(n), y[:, 0]] -= 1
    g /= n
    return loss, x.T @ g, g.sum(0), logits


def np_train(w, b, x, y, lr, batch, epochs, accumulate=1):
    """The updates fit makes with shuffle=False; returns the weights and step losses."""
    w, b = w.astype(np.float64), b.astype(np.float64)
    losses = []
    steps = (len(x) + batch - 1) // batch
    for _ in range(epochs):
        gw, gb = 0, 0
        for i in range(steps):
            loss, dw, db, _ = np_loss_and_grads(w, b, x[i * batch:(i + 1) * batch],
                                                y[i * batch:(i + 1) * batch])
            losses.append(loss)
            gw, gb = gw + dw, gb + db
            if (i + 1) % accumulate == 0 or i + 1 == steps:
                w, b, gw, gb = w - lr * gw, b - lr * gb, 0, 0
    return w, b, losses


def make_model(lr=0.5, metrics=True):
    w, b = initial_weights()
    net = SoftmaxRegression(w, b)
    model = Model(net)
    model.prepare(PlainSGD(lr, net.parameters()), cross_entropy,
                  Accuracy() if metrics else None)
    return model, net
