"""W5's model as an elastic job of the autoscaling experiment (bench/edl_local.py): sparse
CTR, 26 fields summed from an embedding table (ROWS x 16; W5's is 1M rows, cut here so
that its dense all-reduce fits a small machine), MLP 416-256-1, BCE with logits, batches
of 128 per worker, on SAMPLES synthetic records (a fixed seed: every worker builds the
same ones) for EPOCHS epochs, with ElasticTrainer. Every applied step is logged to
steps/steps.PID.jsonl.

    python w5_job.py SAMPLES EPOCHS [ROWS]"""
import sys

import numpy as np

import skiff
import skiff.nn as nn
import skiff.nn.functional as F
from logged_fit import logged_fit

FIELDS, DIM = 26, 16
samples, epochs = int(sys.argv[1]), int(sys.argv[2])
rows = int(sys.argv[3]) if len(sys.argv) > 3 else 20000

rng = np.random.default_rng(11)
ids = rng.integers(0, rows, size=(samples, FIELDS)).astype(np.int64)
weight = rng.standard_normal(rows).astype(np.float32)  # each id's pull on the click
logit = weight[ids].sum(axis=1) / np.sqrt(FIELDS)
labels = (rng.random(samples) < 1 / (1 + np.exp(-logit))).astype(np.float32)[:, None]
train = [(ids[i], labels[i]) for i in range(samples)]


class CTR(nn.Layer):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(rows, DIM)
        self.mlp = nn.Sequential(nn.Linear(FIELDS * DIM, 256), nn.ReLU(), nn.Linear(256, 1))

    def forward(self, x):
        return self.mlp(self.embedding(x).reshape([-1, FIELDS * DIM]))


skiff.seed(5)
model = CTR()
opt = skiff.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
logged_fit("w5", model, opt, train, 128, lambda m, x, y: F.binary_cross_entropy_with_logits(m(x), y), epochs)
