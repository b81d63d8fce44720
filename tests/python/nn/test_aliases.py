"""The PyTorch-style layer names Paddle 3.3 exposes (skiff/nn/layer/aliases.py and the
aliases beside each layer): each is Paddle's class, the same as skiff's."""
import pytest

import skiff.nn as nn


def test_aliases_are_paddles_classes():
    paddle = pytest.importorskip("paddle")
    names = ["Conv1d", "Conv2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d",
             "AdaptiveMaxPool2d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
             "Module", "ModuleList", "ModuleDict"]
    for name in names:
        ours, theirs = getattr(nn, name), getattr(paddle.nn, name)
        assert ours.__name__ == theirs.__name__ or (name == "Module" and ours is nn.Layer)
        assert ours is getattr(nn, theirs.__name__)
    conv = nn.Conv2d(2, 3, 3, padding=1)
    assert isinstance(conv, nn.Conv2D) and list(conv.weight.shape) == [3, 2, 3, 3]
    assert isinstance(nn.ModuleList([nn.Linear(2, 2)]), nn.LayerList)
