"""The model, data and training loop the sharding tests share: a float64 MLP of three
Linear layers trained with Adam (L2 weight decay, global-norm clipping) on a fixed global
batch per step, of which each data rank takes its own rows."""
import numpy as np

import skiff
from skiff import nn

STEPS = 5
BATCH = 8
SIZES = (16, 32, 32, 8)


def build(sizes=SIZES):
    """The MLP and its Adam optimizer, the same in every process."""
    skiff.set_default_dtype("float64")
    skiff.seed(7)
    layers = []
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers.append(nn.Linear(n_in, n_out))
        if i < len(sizes) - 2:
            layers.append(nn.Tanh())
    model = nn.Sequential(*layers)
    opt = skiff.optimizer.Adam(learning_rate=0.01, parameters=model.parameters(),
                               weight_decay=0.01, grad_clip=nn.ClipGradByGlobalNorm(0.5))
    return model, opt


def batch(step, part=0, parts=1):
    """Rows ``part`` of ``parts`` of the global batch of ``step``."""
    rng = np.random.RandomState(100 + step)
    x = rng.standard_normal((BATCH, SIZES[0]))
    y = rng.standard_normal((BATCH, SIZES[-1]))
    rows = slice(part * BATCH // parts, (part + 1) * BATCH // parts)
    return skiff.to_tensor(x[rows]), skiff.to_tensor(y[rows])


def train_step(model, opt, step, part=0, parts=1):
    """One step on this rank's rows; returns its loss."""
    x, y = batch(step, part, parts)
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    opt.clear_grad()
    return float(loss.numpy())
