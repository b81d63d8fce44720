"""The CTR model and data of the parameter-server tests: 8 sparse fields of 3 ids each
(ids spread over the whole int64 range, Zipf-like popularity), each field's rows summed,
concatenated, an MLP and a logit; labels drawn from a hidden per-id weight model.

With SKIFF_PS_CTR_MODEL=w5 in the environment it is W5 (the shared workloads' sparse CTR
step): 26 fields of one id from a table of 1M ids (38461 per field), rows of 16, an MLP
416-256-1, batches of 512."""
import os

import numpy as np

import skiff
import skiff.nn as nn
import skiff.nn.functional as F

MODEL = os.environ.get("SKIFF_PS_CTR_MODEL", "small")
if MODEL == "w5":
    FIELDS, IDS_PER_FIELD, DIM, VOCAB, HIDDEN = 26, 1, 16, 1_000_000 // 26, 256
    BATCH, STEPS, EVAL = 512, 200, 2048
else:
    FIELDS, IDS_PER_FIELD, DIM, VOCAB, HIDDEN = 8, 3, 8, 100, 32
    BATCH, STEPS, EVAL = 64, 200, 2048
LR = 0.1
SIGNAL = 4.0  # the hidden logit's std
EMBEDDING_INIT = {"kind": "uniform", "low": -0.1, "high": 0.1, "seed": 11}
SGD = {"kind": "sgd", "lr": LR}


def make_data(seed=0):
    """(vocabulary [FIELDS, VOCAB] int64, train ids [STEPS * BATCH, FIELDS, IDS_PER_FIELD],
    train labels, eval ids, eval labels)."""
    rng = np.random.default_rng(seed)
    vocab = rng.integers(-2**63, 2**63 - 1, size=(FIELDS, VOCAB), dtype=np.int64,
                         endpoint=True)
    hidden = rng.normal(0.0, 1.0, (FIELDS, VOCAB))
    popularity = 1.0 / np.arange(1, VOCAB + 1) ** 1.1
    popularity /= popularity.sum()

    def draw(n):
        which = rng.choice(VOCAB, size=(n, FIELDS, IDS_PER_FIELD), p=popularity)
        field = np.arange(FIELDS)[None, :, None]
        logit = hidden[field, which].sum(axis=(1, 2)) / np.sqrt(FIELDS * IDS_PER_FIELD) * SIGNAL
        label = (rng.random(n) < 1.0 / (1.0 + np.exp(-logit))).astype(np.float32)
        return vocab[field, which], label

    train_ids, train_labels = draw(STEPS * BATCH)
    eval_ids, eval_labels = draw(EVAL)
    return vocab, train_ids, train_labels, eval_ids, eval_labels


class CTR(nn.Layer):
    def __init__(self, embedding):
        super().__init__()
        self.embedding = embedding
        self.fc1 = nn.Linear(FIELDS * DIM, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, 1)

    def forward(self, ids):  # ids [B, FIELDS, IDS_PER_FIELD]
        pooled = self.embedding(ids).sum(axis=2).reshape([-1, FIELDS * DIM])
        return self.fc2(F.relu(self.fc1(pooled))).reshape([-1])


def loss_of(model, ids, labels):
    return F.binary_cross_entropy_with_logits(model(ids), skiff.to_tensor(labels))


class LocalEmbedding(nn.Layer):
    """An nn.Embedding(sparse=True) over the ids ``known`` (int64), looked up by id."""

    def __init__(self, known, rows):
        super().__init__()
        self.known = np.sort(np.asarray(known, np.int64).reshape(-1))
        assert len(np.unique(self.known)) == len(self.known), "ids repeat"
        order = np.argsort(np.asarray(known, np.int64).reshape(-1), kind="stable")
        self.table = nn.Embedding(len(self.known), DIM, sparse=True)
        self.table.weight.set_value(np.asarray(rows, np.float32)[order])

    def forward(self, ids):
        where = np.searchsorted(self.known, np.asarray(ids))
        return self.table(skiff.to_tensor(where.astype(np.int64)))

    def rows(self, ids):
        """The current rows of ``ids`` as numpy [n, DIM]."""
        return self.table.weight.numpy()[np.searchsorted(self.known, ids)]


def auc(scores, labels):
    """The area under the ROC curve (the Mann-Whitney statistic, ties counted half)."""
    order = np.argsort(scores, kind="stable")
    ranks = np.empty(len(scores))
    sorted_scores = scores[order]
    i = 0
    while i < len(scores):  # average ranks over ties
        j = i
        while j + 1 < len(scores) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i:j + 1]] = (i + j) / 2.0 + 1
        i = j + 1
    positive = labels > 0.5
    n_pos, n_neg = positive.sum(), (~positive).sum()
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def evaluate(model, ids, labels):
    """(mean log loss, AUC) of ``model`` on the samples."""
    with skiff.no_grad():
        logits = model(ids)
        loss = float(F.binary_cross_entropy_with_logits(logits, skiff.to_tensor(labels)))
    return loss, auc(logits.numpy(), labels)
