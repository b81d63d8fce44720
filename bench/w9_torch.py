"""W9 in PyTorch, the peer of bench/w9_hybrid.py: the same GPT-2 shaped model (fused q/k/v
laid out head by head, pre-LayerNorm blocks, tied output) and AdamW, in the layouts a
PyTorch user would pick on CPU ranks over Gloo:

  single   one process
  ddp      DistributedDataParallel (dp = world)
  fsdp     fully_shard (FSDP2: parameters, gradients and optimizer state sharded, ZeRO-3)
  tp       tensor parallel with torch.distributed.tensor.parallel (colwise q/k/v and MLP up,
           rowwise out and MLP down; embedding and output replicated)

Run by w9_hybrid.py as ``python -m torch.distributed.run --nproc_per_node N w9_torch.py
LAYOUT STEPS WARMUP OUT``; rank 0 writes {"tokens_per_s", "step_ms"} to OUT (JSON).
"""
import json
import math
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn

VOCAB, HIDDEN, LAYERS, HEADS, SEQ, BATCH = 8192, 256, 4, 8, 128, 8


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_dim = HIDDEN // HEADS
        self.local_heads = HEADS
        self.qkv = nn.Linear(HIDDEN, 3 * HIDDEN)
        self.out = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, x):
        b, s, _ = x.shape
        qkv = self.qkv(x).view(b, s, self.local_heads, 3, self.head_dim).permute(3, 0, 2, 1, 4)
        out = F.scaled_dot_product_attention(qkv[0], qkv[1], qkv[2], is_causal=True)
        return self.out(out.transpose(1, 2).reshape(b, s, self.local_heads * self.head_dim))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(HIDDEN), nn.LayerNorm(HIDDEN)
        self.attention = Attention()
        self.up, self.down = nn.Linear(HIDDEN, 4 * HIDDEN), nn.Linear(4 * HIDDEN, HIDDEN)

    def forward(self, x):
        x = x + self.attention(self.ln1(x))
        return x + self.down(F.gelu(self.up(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.word, self.position = nn.Embedding(VOCAB, HIDDEN), nn.Embedding(SEQ, HIDDEN)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln = nn.LayerNorm(HIDDEN)
        for p in self.parameters():
            if p.dim() == 2:
                nn.init.normal_(p, 0.0, 0.02)

    def forward(self, tokens):
        x = self.word(tokens) + self.position(torch.arange(tokens.shape[1]))
        for block in self.blocks:
            x = block(x)
        return self.ln(x) @ self.word.weight.t()


def wrap(model, layout, world):
    if layout == "ddp":
        return nn.parallel.DistributedDataParallel(model)
    if layout == "fsdp":  # FSDP2 (fully_shard): FSDP1 refuses CPU-only machines
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.fsdp import fully_shard
        mesh = init_device_mesh("cpu", (world,))
        for block in model.blocks:
            fully_shard(block, mesh=mesh)
        return fully_shard(model, mesh=mesh)
    if layout == "tp":
        from torch.distributed.device_mesh import init_device_mesh
        from torch.distributed.tensor.parallel import (ColwiseParallel, RowwiseParallel,
                                                       parallelize_module)
        mesh = init_device_mesh("cpu", (world,))
        for block in model.blocks:
            block.attention.local_heads = HEADS // world
            parallelize_module(block, mesh, {"attention.qkv": ColwiseParallel(),
                                             "attention.out": RowwiseParallel(),
                                             "up": ColwiseParallel(), "down": RowwiseParallel()})
        return model
    return model


def main(layout, steps, warmup, out):
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1:
        dist.init_process_group("gloo")
    rank = dist.get_rank() if world > 1 else 0
    torch.manual_seed(0)
    model = wrap(GPT(), layout, world)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    data_ranks = 1 if layout in ("tp", "single") else world
    per_rank = BATCH // data_ranks
    generator = torch.Generator().manual_seed(rank if data_ranks > 1 else 0)
    tokens = torch.randint(0, VOCAB, (per_rank, SEQ + 1), generator=generator)
    times = []
    for step in range(warmup + steps):
        start = time.perf_counter()
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if world > 1:
            dist.barrier()
        times.append(time.perf_counter() - start)
        assert math.isfinite(float(loss))
    step_s = sorted(times[warmup:])[len(times[warmup:]) // 2]
    if rank == 0:
        with open(out, "w") as f:
            json.dump({"tokens_per_s": BATCH * SEQ / step_s, "step_ms": step_s * 1e3}, f)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // int(os.environ.get("WORLD_SIZE",
                                                                            "1"))))
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
