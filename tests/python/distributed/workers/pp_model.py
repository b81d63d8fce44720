"""The model the pipeline-parallel tests train: a tied embedding, four Linear + tanh blocks
and an output projection through the embedding's weight, as pipeline layer descriptions
and as one plain layer (the reference), with the data and the optimizer both use."""
import numpy as np

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from skiff.distributed.fleet.meta_parallel.pipeline_layer import LayerDesc, SharedLayerDesc

VOCAB, HIDDEN, BLOCKS, SEQ = 11, 8, 4, 3
SEED, STEPS = 5, 3


class Block(nn.Layer):
    def __init__(self, hidden):
        super().__init__()
        self.fc = nn.Linear(hidden, hidden)

    def forward(self, x):
        return x + skiff.tanh(self.fc(x))


def tied_logits(embedding, x):
    return skiff.matmul(x, embedding.weight, transpose_y=True)


def loss_fn(logits, labels):
    return F.cross_entropy(logits.reshape([-1, VOCAB]), labels.reshape([-1]))


def descs():
    return [SharedLayerDesc("embed", nn.Embedding, None, "weight", VOCAB, HIDDEN),
            *[LayerDesc(Block, HIDDEN) for _ in range(BLOCKS)],
            SharedLayerDesc("embed", nn.Embedding, tied_logits, "weight", VOCAB, HIDDEN)]


class Reference(nn.Layer):
    """The same model in one process (its layers made in the order of descs())."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.blocks = nn.LayerList([Block(HIDDEN) for _ in range(BLOCKS)])

    def forward(self, tokens):
        h = self.embed(tokens)
        for block in self.blocks:
            h = block(h)
        return tied_logits(self.embed, h)


def reference_name(pipeline_name):
    """The Reference's name of a PipelineLayer parameter ("2.fc.weight" is the second
    block's)."""
    head, rest = pipeline_name.split(".", 1)
    if head == "shared_layers":
        return rest
    return f"blocks.{int(head) - 1}.{rest}"


def batches(samples):
    """(tokens, labels) of each step: int64 [STEPS, samples, SEQ]."""
    rng = np.random.default_rng(11)
    tokens = rng.integers(0, VOCAB, size=[STEPS, samples, SEQ])
    return tokens, (tokens * 3 + 1) % VOCAB


def optimizer(parameters):
    """SGD with a learning rate that decays after the second step."""
    scheduler = skiff.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.5)
    return skiff.optimizer.SGD(learning_rate=scheduler, parameters=parameters), scheduler


def train_reference(samples):
    """(losses, {name: parameter}, the model) of one process training on the whole
    batches."""
    previous = skiff.get_default_dtype()
    skiff.set_default_dtype("float64")
    try:
        skiff.seed(SEED)
        model = Reference()
    finally:
        skiff.set_default_dtype(previous)
    opt, scheduler = optimizer(model.parameters())
    tokens, labels = batches(samples)
    losses = []
    for step in range(STEPS):
        loss = loss_fn(model(skiff.to_tensor(tokens[step])), skiff.to_tensor(labels[step]))
        loss.backward()
        opt.step()
        opt.clear_grad()
        scheduler.step()
        losses.append(float(loss))
    return losses, {n: p.numpy() for n, p in model.named_parameters()}, model
