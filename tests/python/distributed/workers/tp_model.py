"""A tiny language model built of the tensor-parallel layers, or of the plain layers they
split, its data and its training loop: tp_train.py trains the parallel one in a job, the
test the plain one in its own process, on the same global batches."""
import numpy as np

import skiff
import skiff.nn.functional as F
from skiff import nn
from skiff.distributed.fleet.meta_parallel.mp_layers import (ColumnParallelLinear,
                                                             ParallelCrossEntropy,
                                                             RowParallelLinear,
                                                             VocabParallelEmbedding)

SEED, VOCAB, HIDDEN, BATCH, LENGTH, STEPS, LR = 2024, 64, 16, 8, 3, 4, 0.5


class TinyLM(nn.Layer):
    """ids -> embedding -> up (split outputs) -> tanh -> down (split inputs) -> mix_in
    (gathered outputs) -> mix_out (splits its input) -> head: logits over the vocabulary,
    split over the model-parallel ranks when ``parallel``."""

    def __init__(self, parallel):
        super().__init__()
        if parallel:
            self.embedding = VocabParallelEmbedding(VOCAB, HIDDEN)
            self.up = ColumnParallelLinear(HIDDEN, 2 * HIDDEN, has_bias=True,
                                           gather_output=False)
            self.down = RowParallelLinear(2 * HIDDEN, HIDDEN, input_is_parallel=True)
            self.mix_in = ColumnParallelLinear(HIDDEN, HIDDEN, has_bias=False)
            self.mix_out = RowParallelLinear(HIDDEN, HIDDEN)
            self.head = ColumnParallelLinear(HIDDEN, VOCAB, gather_output=False)
        else:
            self.embedding = nn.Embedding(VOCAB, HIDDEN)
            self.up = nn.Linear(HIDDEN, 2 * HIDDEN)
            self.down = nn.Linear(2 * HIDDEN, HIDDEN)
            self.mix_in = nn.Linear(HIDDEN, HIDDEN, bias_attr=False)
            self.mix_out = nn.Linear(HIDDEN, HIDDEN)
            self.head = nn.Linear(HIDDEN, VOCAB, bias_attr=False)

    def forward(self, ids):
        h = self.down(F.tanh(self.up(self.embedding(ids))))
        return self.head(self.mix_out(F.tanh(self.mix_in(h))))


def batches():
    """[STEPS, BATCH, LENGTH] ids and labels: one batch, fitted step after step (one label
    ignored, -100)."""
    rng = np.random.RandomState(7)
    ids = rng.randint(0, VOCAB, size=(1, BATCH, LENGTH))
    labels = rng.randint(0, VOCAB, size=(1, BATCH, LENGTH))
    labels[:, 0, 0] = -100
    return ids.repeat(STEPS, axis=0), labels.repeat(STEPS, axis=0)


def plain_loss(logits, labels):
    return F.cross_entropy(logits, labels.unsqueeze(-1), reduction="none").mean()


def parallel_loss(logits, labels):
    return ParallelCrossEntropy()(logits, labels).mean()


def train(model, loss_fn, ids, labels):
    """The loss of each of the SGD steps on the batches given."""
    opt = skiff.optimizer.SGD(learning_rate=LR, parameters=model.parameters())
    losses = []
    for step in range(len(ids)):
        loss = loss_fn(model(skiff.to_tensor(ids[step])), skiff.to_tensor(labels[step]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss.numpy()))
    return losses
