"""W9's GPT (gpt.py) as pipeline layer descriptions: the token embedding shared by the
first stage and the tied output of the last, the position embedding, the blocks and the
final LayerNorm, made in the order GPT makes them (so from the same seed every stage holds
exactly one process's parameters of its part).

    model = PipelineLayer(gpt_descs(config), topology=hcg.topology(), loss_fn=gpt_loss,
                          seg_method="layer:Block")
    model = fleet.distributed_model(model)            # PipelineParallel
    loss = model.train_batch([tokens[:, :-1], tokens[:, 1:]], optimizer)
"""
import skiff
from skiff import nn
from skiff.distributed.fleet.meta_parallel.mp_layers import (ParallelCrossEntropy,
                                                             VocabParallelEmbedding)
from skiff.distributed.fleet.meta_parallel.mp_ops import _c_identity
from skiff.distributed.fleet.meta_parallel.pipeline_layer import LayerDesc, SharedLayerDesc

from gpt import Block, _normal

__all__ = ["gpt_descs", "gpt_loss", "gpt_name"]


class Positions(nn.Layer):
    """Adds the position rows to the token rows."""

    def __init__(self, config):
        super().__init__()
        self.position = nn.Embedding(config.seq_len, config.hidden, weight_attr=_normal(config))

    def forward(self, x):
        positions = skiff.arange(x.shape[1], dtype="int64").unsqueeze(0)
        return x + self.position(positions)


class FinalNorm(nn.Layer):
    def __init__(self, config):
        super().__init__()
        self.ln = nn.LayerNorm(config.hidden)

    def forward(self, x):
        return self.ln(x)


def tied_logits(embedding, x):
    """The logits of this rank's vocabulary range through the token embedding's weight."""
    return skiff.matmul(_c_identity(x), embedding.weight, transpose_y=True)


def gpt_descs(config):
    word = (config.vocab_size, config.hidden, _normal(config))
    return [SharedLayerDesc("word", VocabParallelEmbedding, None, "weight", *word),
            LayerDesc(Positions, config),
            *[LayerDesc(Block, config) for _ in range(config.layers)],
            LayerDesc(FinalNorm, config),
            SharedLayerDesc("word", VocabParallelEmbedding, tied_logits, "weight", *word)]


class _Loss:
    def __init__(self):
        self.cross_entropy = None

    def __call__(self, logits, labels):
        if self.cross_entropy is None:  # made at first use: after fleet.init
            self.cross_entropy = ParallelCrossEntropy()
        return self.cross_entropy(logits, labels.unsqueeze(-1)).mean()


gpt_loss = _Loss()


def gpt_name(name, config):
    """GPT's name of a PipelineLayer parameter ("3.attention.qkv.weight" is the second
    block's)."""
    head, rest = name.split(".", 1)
    if head == "shared_layers":
        return "embeddings." + rest
    index = int(head)
    if index == 1:
        return "embeddings." + rest
    if index == config.layers + 2:
        return "head." + rest
    return f"blocks.{index - 2}.{rest}"
