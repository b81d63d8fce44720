"""W9: a GPT-2 shaped language model written once for every hybrid-parallel layout.

Token and position embeddings, ``layers`` pre-LayerNorm blocks of causal multi-head
attention and a 4x MLP, a final LayerNorm, and the output projection tied to the token
embedding. Its linear layers are fleet's tensor-parallel ones, so the same model runs in
one process (model-parallel degree 1: they are plain layers), split over a
model-parallel group, or cut into pipeline stages (gpt_pipe.py):

    fleet.init(is_collective=True, strategy=s)    # s.hybrid_configs = {"mp_degree": 2}
    model = GPT(GPTConfig())                       # W9: 4 layers, hidden 256, 8 heads, ...
    loss = model.loss(model(tokens), labels)

A head is never split: the query, key and value columns of the fused projection are laid
out head by head, so a model-parallel rank holds whole heads (heads / degree of them).
"""
import dataclasses

import skiff
import skiff.nn.functional as F
from skiff import nn
from skiff.distributed.fleet.meta_parallel.mp_layers import (
    ColumnParallelLinear, ParallelCrossEntropy, RowParallelLinear, VocabParallelEmbedding)
from skiff.distributed.fleet.meta_parallel.mp_ops import _c_identity

__all__ = ["GPTConfig", "GPT", "Block", "Embeddings", "TiedHead", "causal_mask"]


@dataclasses.dataclass
class GPTConfig:
    """W9's sizes by default (shared workloads: 4 layers, hidden 256, 8 heads, vocabulary
    8192, sequence 128)."""
    vocab_size: int = 8192
    hidden: int = 256
    layers: int = 4
    heads: int = 8
    seq_len: int = 128
    init_std: float = 0.02


def _normal(config):
    return skiff.ParamAttr(initializer=nn.initializer.Normal(0.0, config.init_std))


def causal_mask(length, dtype):
    """[length, length]: 0 on and below the diagonal, -1e4 above (a position sees only the
    ones before it)."""
    upper = skiff.triu(skiff.ones([length, length], dtype), diagonal=1)
    return upper * -1e4


class Attention(nn.Layer):
    """Causal self-attention over this rank's heads: a column-parallel fused q/k/v
    projection and a row-parallel output projection (one all-reduce in forward)."""

    def __init__(self, config):
        super().__init__()
        if config.hidden % config.heads:
            raise ValueError(f"GPT: hidden {config.hidden} is not divisible by heads "
                             f"{config.heads}")
        self.head_dim = config.hidden // config.heads
        self.qkv = ColumnParallelLinear(config.hidden, 3 * config.hidden, _normal(config),
                                        has_bias=True, gather_output=False)
        self.out = RowParallelLinear(config.hidden, config.hidden, _normal(config),
                                     input_is_parallel=True)
        if config.heads % self.qkv.world_size:
            raise ValueError(f"GPT: {config.heads} heads cannot be split over the "
                             f"model-parallel degree {self.qkv.world_size}")
        self.local_heads = config.heads // self.qkv.world_size

    def forward(self, x):
        batch, length = x.shape[0], x.shape[1]
        qkv = self.qkv(x).reshape([batch, length, self.local_heads, 3, self.head_dim])
        qkv = qkv.transpose([3, 0, 2, 1, 4])  # [3, batch, heads, length, head_dim]
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = skiff.matmul(q, k, transpose_y=True) * (self.head_dim ** -0.5)
        weights = F.softmax(scores + causal_mask(length, scores.dtype), axis=-1)
        out = skiff.matmul(weights, v).transpose([0, 2, 1, 3])
        return self.out(out.reshape([batch, length, self.local_heads * self.head_dim]))


class MLP(nn.Layer):
    def __init__(self, config):
        super().__init__()
        self.up = ColumnParallelLinear(config.hidden, 4 * config.hidden, _normal(config),
                                       has_bias=True, gather_output=False)
        self.down = RowParallelLinear(4 * config.hidden, config.hidden, _normal(config),
                                      input_is_parallel=True)

    def forward(self, x):
        return self.down(F.gelu(self.up(x), approximate=True))


class Block(nn.Layer):
    """x + attention(ln(x)), then + mlp(ln(...)) (pre-LayerNorm, as GPT-2)."""

    def __init__(self, config):
        super().__init__()
        self.ln1 = nn.LayerNorm(config.hidden)
        self.attention = Attention(config)
        self.ln2 = nn.LayerNorm(config.hidden)
        self.mlp = MLP(config)

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Embeddings(nn.Layer):
    """Token rows (split over the vocabulary across model-parallel ranks) plus position
    rows (whole on every rank)."""

    def __init__(self, config):
        super().__init__()
        self.word = VocabParallelEmbedding(config.vocab_size, config.hidden, _normal(config))
        self.position = nn.Embedding(config.seq_len, config.hidden, weight_attr=_normal(config))

    def forward(self, tokens):
        positions = skiff.arange(tokens.shape[1], dtype="int64").unsqueeze(0)
        return self.word(tokens) + self.position(positions)


class TiedHead(nn.Layer):
    """The final LayerNorm and the logits of this rank's vocabulary range through the
    token embedding's weight (``embedding``, shared, not owned)."""

    def __init__(self, config):
        super().__init__()
        self.ln = nn.LayerNorm(config.hidden)

    def forward(self, x, embedding):
        return skiff.matmul(_c_identity(self.ln(x)), embedding.weight, transpose_y=True)


class GPT(nn.Layer):
    """forward(tokens [batch, length] int64) -> logits [batch, length, vocab / mp degree];
    loss(logits, labels) -> the mean token cross entropy."""

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = Embeddings(config)
        self.blocks = nn.LayerList([Block(config) for _ in range(config.layers)])
        self.head = TiedHead(config)
        self.cross_entropy = ParallelCrossEntropy()

    def forward(self, tokens):
        x = self.embeddings(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x, self.embeddings.word)

    def loss(self, logits, labels):
        return self.cross_entropy(logits, labels.unsqueeze(-1)).mean()
