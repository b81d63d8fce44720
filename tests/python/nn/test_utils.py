"""skiff.nn.utils: gradient clipping and parameter vectors against PyTorch."""
import numpy as np
import pytest
import torch

import skiff
import skiff.nn as nn
from nn_reference import close, rand, set_param, tensor


def _pair():
    ours, theirs = nn.Linear(4, 3).double(), torch.nn.Linear(4, 3).double()
    set_param(ours.weight, theirs.weight.detach().numpy().T)
    set_param(ours.bias, theirs.bias)
    x = rand(5, 4)
    skiff.sum(ours(tensor(x)) * 3).backward()
    (theirs(torch.tensor(x)) * 3).sum().backward()
    return ours, theirs


@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0, float("inf")])
@pytest.mark.parametrize("max_norm", [0.5, 1000.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    ours, theirs = _pair()
    total = nn.utils.clip_grad_norm_(ours.parameters(), max_norm, norm_type)
    ref = torch.nn.utils.clip_grad_norm_(theirs.parameters(), max_norm, norm_type)
    close(total, ref)
    close(ours.weight.grad, theirs.weight.grad.T)
    close(ours.bias.grad, theirs.bias.grad)


def test_clip_grad_value_and_vectors():
    ours, theirs = _pair()
    nn.utils.clip_grad_value_(ours.parameters(), 0.7)
    torch.nn.utils.clip_grad_value_(theirs.parameters(), 0.7)
    close(ours.weight.grad, theirs.weight.grad.T)
    vec = nn.utils.parameters_to_vector(ours.parameters())
    assert vec.shape == [15]
    close(vec, np.concatenate([ours.weight.numpy().ravel(), ours.bias.numpy()]))
    nn.utils.vector_to_parameters(tensor(np.arange(15.0)), ours.parameters())
    close(ours.bias.numpy(), [12.0, 13.0, 14.0])
    with pytest.raises(skiff.Error, match="15"):
        nn.utils.vector_to_parameters(tensor(np.arange(16.0)), ours.parameters())
